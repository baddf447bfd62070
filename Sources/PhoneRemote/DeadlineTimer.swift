import Messaging
import Synchronization

/// One timer armed for the next thing that is due, and not at all when nothing is: the remote's access gate has
/// deadlines minutes apart (a code's expiry, a controller's idle limit), so it needs no periodic tick. Arming again
/// for the same time does nothing; arming for another replaces the sleeping task. ``stop()`` ends it for good.
final class DeadlineTimer: Sendable {
    private struct State {
        var fire: (@Sendable () -> Void)?
        /// When the sleeping task is due (``MonotonicClock`` ns), and the task.
        var due: UInt64?
        var sleeper: Task<Void, Never>?
        var stopped = false
    }
    private let state = Mutex(State())
    /// Where the sleeping task runs (the remote's own thread).
    private let executor: (any TaskExecutor)?
    /// Never sooner than this, so a deadline that is due now cannot spin.
    static let shortest: UInt64 = 1_000_000

    init(executor: (any TaskExecutor)? = nil) {
        self.executor = executor
    }

    /// What to call when a deadline arrives; the timer stays disarmed until ``arm(at:)``.
    func start(_ fire: @escaping @Sendable () -> Void) {
        state.withLock { $0.fire = fire }
    }

    /// Fires once, `seconds` from now (rounded up to 1 ms, plus 1 ms so the deadline has passed when it fires); nil
    /// disarms.
    func arm(at seconds: Double?) {
        let now = MonotonicClock.nanoseconds()
        let due = seconds.map { now &+ max(Self.shortest, UInt64(max(0, $0) * 1e9) &+ Self.shortest) }
        state.withLock { state in
            guard !state.stopped, let fire = state.fire else { return }
            if let due, let armed = state.due, armed > now, armed.distance(to: due).magnitude < Self.shortest {
                return
            }
            state.sleeper?.cancel()
            state.sleeper = nil
            state.due = due
            guard let due else { return }
            state.sleeper = Task(executorPreference: executor) { [weak self] in
                do {
                    try await Task.sleep(for: .nanoseconds(Int64(clamping: due &- MonotonicClock.nanoseconds())))
                } catch {
                    return
                }
                let current = self?.state.withLock { state -> Bool in
                    guard state.due == due else { return false }
                    state.due = nil
                    state.sleeper = nil
                    return true
                }
                if current == true { fire() }
            }
        }
    }

    /// Whether a deadline is armed (for tests of the idle cost).
    var isArmed: Bool { state.withLock { $0.due != nil } }

    func stop() {
        state.withLock { state in
            state.stopped = true
            state.sleeper?.cancel()
            state.sleeper = nil
            state.due = nil
            state.fire = nil
        }
    }
}
