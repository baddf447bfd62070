import Logging
import Messaging
import Screens
import Synchronization
import SystemCalls
import Wayland

/// Writes the state file off the display thread. A write is two `fsync`s: milliseconds on an SSD, tens of
/// milliseconds on an SD card, and on a dying card or a hung network home it may not return at all. None of that may
/// hold up a frame or a reply.
///
/// One write at a time, each on a thread of its own (``FileThreads``): ``write(_:change:)`` hands a snapshot of the
/// state over, and how the write went comes back to the display thread through an eventfd watched on its loop, as
/// ``onWritten``. A write still under way after ``hangsAfter`` counts as hung: ``isWriting`` stays true, so no other
/// write piles up behind it, and `status` keeps showing the state as unsaved. Made with the application; at exit
/// ``finish()`` waits for the write under way until it counts as hung, then the last changes are written there and
/// then.
final class StateWriter {
    /// How long a write may take before it counts as hung (and is logged as such).
    static let hangsAfter = 10.0

    /// A write ended: the count of changes it included, and its failure if it failed. On the display thread.
    var onWritten: (_ change: Int, _ failure: StateStoreError?) -> Void = { _, _ in }
    /// A write is under way (or hung): nothing else is written until it ends.
    var isWriting: Bool { writeHangsAt != nil }
    /// When the write under way counts as hung (``MonotonicClock`` ns); nil while none is.
    private var writeHangsAt: UInt64?

    private let store: StateStore
    private let loop: EventLoop
    private let threads = FileThreads()
    /// Fires ``hangsAfter`` into a write, to say it hangs (a hung write sends no news).
    private let hangTimer: OneShotTimer
    /// The writes that ended, handed from their threads to the display thread. Its eventfd closes with it: a hung
    /// write's thread holds it until the process ends.
    private let ended: Mailbox<EndedWrite>
    private let logger: Logger

    init(store: StateStore, loop: EventLoop, logger: Logger) throws {
        self.store = store
        self.loop = loop
        self.logger = logger
        hangTimer = try OneShotTimer(on: loop)
        ended = try Mailbox()
        loop.watch(ended.wakeDescriptor) { [unowned self] in takeResults() }
        hangTimer.fired = { [unowned self] in takeResults() }
    }

    /// Writes `state`, which includes the first `change` changes, on a thread of its own. Only while no write is
    /// under way.
    func write(_ state: PersistentState, change: Int) {
        precondition(!isWriting, "one state write at a time")
        let hangsAt = MonotonicClock.nanoseconds() &+ UInt64(Self.hangsAfter * 1e9)
        writeHangsAt = hangsAt
        hangTimer.arm(atMonotonic: hangsAt)
        let (store, ended, outcome) = (store, ended, WriteOutcome())
        do {
            try threads.start(
                path: store.path, hangsAt: hangsAt, named: "ms-state",
                work: {
                    do throws(StateStoreError) {
                        try store.save(state)
                        outcome.value.withLock { $0 = (change, nil) }
                    } catch {
                        outcome.value.withLock { $0 = (change, error) }
                    }
                },
                // Posted only once the piece counts as finished, so that the display thread joins its thread as it
                // takes the result.
                finished: { late in
                    guard let (change, failure) = outcome.value.withLock({ $0 }) else { return }
                    ended.post(EndedWrite(change: change, failure: failure, afterHanging: late))
                })
        } catch {
            writeHangsAt = nil
            hangTimer.disarm()
            onWritten(change, StateStoreError(path: store.path, operation: "start a thread for", reason: "\(error)"))
        }
    }

    /// The writes that ended, on the display thread: each to ``onWritten``; finished threads joined, a hung write
    /// logged once, and a hung one that returned logged too.
    private func takeResults() {
        for path in threads.reap() {
            logger.error(
                "the write of \(path.logSafe) has not returned for \(Self.hangsAfter) s: the state stays unsaved until it does"
            )
        }
        for result in ended.take().items {
            if result.afterHanging { logger.notice("the hung write of \(store.path.logSafe) returned") }
            writeHangsAt = nil
            hangTimer.disarm()
            onWritten(result.change, result.failure)
        }
    }

    /// At exit: waits for the write under way until it counts as hung (a slow card's write is not thrown away) and
    /// takes its result, so that the caller writes only what it did not include; then takes the eventfd off the loop.
    /// - Returns: false when a write still hangs: writing again would hang too.
    func finish() -> Bool {
        let now = MonotonicClock.nanoseconds()
        let left = threads.finish(waitingAtMost: writeHangsAt.map { $0 > now ? Double($0 - now) / 1e9 : 0 } ?? 0)
        takeResults()
        hangTimer.disarm()
        loop.unwatch(ended.wakeDescriptor)
        return left == 0
    }
}

/// A write's end as the display thread takes it.
private struct EndedWrite: Sendable {
    let change: Int
    let failure: StateStoreError?
    /// It had been reported hung.
    let afterHanging: Bool
}

/// How a write went, from its end (in the piece's work) to the piece's finish, on the writing thread.
private final class WriteOutcome: Sendable {
    let value = Mutex<(change: Int, failure: StateStoreError?)?>(nil)
}
