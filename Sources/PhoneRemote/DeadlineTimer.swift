import Messaging
import NIOCore
import Synchronization
import SystemCalls

/// One timer armed for the next thing that is due, and not at all when nothing is: the remote's access gate has
/// deadlines minutes apart (a code's expiry, a controller's idle limit), so it needs no periodic tick. Arming again
/// for the same time does nothing; arming for another replaces the scheduled task. ``stop()`` ends it for good.
///
/// The remote's event loop keeps the time (a task scheduled on it, its own timer in its own `epoll`), not
/// `Task.sleep`: on Linux a sleeping task is handed to libdispatch, whose first worker thread starts a monitor that
/// wakes the process every second for as long as it runs, an idle kiosk included.
final class DeadlineTimer: Sendable {
    private struct State {
        var fire: (@Sendable () -> Void)?
        /// When the scheduled task is due (``MonotonicClock`` ns), and the task.
        var due: UInt64?
        var scheduled: Scheduled<Void>?
        var stopped = false
    }
    private let state = Mutex(State())
    /// Where the timer runs and fires (the remote's own thread).
    private let loop: any EventLoop
    /// Never sooner than this, so a deadline that is due now cannot spin.
    static let shortest: UInt64 = 1_000_000

    init(loop: any EventLoop) {
        self.loop = loop
    }

    /// What to call when a deadline arrives; the timer stays disarmed until ``arm(at:)``.
    func start(_ fire: @escaping @Sendable () -> Void) {
        state.withLock { $0.fire = fire }
    }

    /// Fires once, `seconds` from now (rounded up to 1 ms, plus 1 ms so the deadline has passed when it fires), on
    /// the loop's thread; nil disarms.
    func arm(at seconds: Double?) {
        let now = MonotonicClock.nanoseconds()
        let due = seconds.map { now &+ max(Self.shortest, UInt64(max(0, $0) * 1e9) &+ Self.shortest) }
        state.withLock { state in
            guard !state.stopped, let fire = state.fire else { return }
            if let due, let armed = state.due, armed > now, armed.distance(to: due).magnitude < Self.shortest {
                return
            }
            state.scheduled?.cancel()
            state.scheduled = nil
            state.due = due
            guard let due else { return }
            state.scheduled = loop.scheduleTask(in: .nanoseconds(Int64(clamping: due &- now))) { [weak self] in
                let current = self?.state.withLock { state -> Bool in
                    guard state.due == due else { return false }
                    state.due = nil
                    state.scheduled = nil
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
            state.scheduled?.cancel()
            state.scheduled = nil
            state.due = nil
            state.fire = nil
        }
    }
}
