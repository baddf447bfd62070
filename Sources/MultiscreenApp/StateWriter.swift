import CLinux
import Glibc
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
/// ``finish(waitingAtMost:)`` waits for the write under way, then the last changes are written there and then.
final class StateWriter {
    /// How long a write may take before it counts as hung (and is logged as such).
    static let hangsAfter = 10.0

    /// A write ended: the count of changes it included, and its failure if it failed. On the display thread.
    var onWritten: (_ change: Int, _ failure: StateStoreError?) -> Void = { _, _ in }
    /// A write is under way (or hung): nothing else is written until it ends.
    private(set) var isWriting = false

    private let store: StateStore
    private let loop: EventLoop
    private let threads = FileThreads()
    /// Fires ``hangsAfter`` into a write, to say it hangs (a hung write sends no news).
    private let hangTimer: OneShotTimer
    private let ended: EndedWrites
    private let logger: Logger

    init(store: StateStore, loop: EventLoop, logger: Logger) throws {
        self.store = store
        self.loop = loop
        self.logger = logger
        hangTimer = try OneShotTimer(on: loop)
        ended = try EndedWrites()
        loop.watch(ended.fileDescriptor) { [unowned self] in takeResults() }
        hangTimer.fired = { [unowned self] in takeResults() }
    }

    /// Writes `state`, which includes the first `change` changes, on a thread of its own. Only while no write is
    /// under way.
    func write(_ state: PersistentState, change: Int) {
        precondition(!isWriting, "one state write at a time")
        isWriting = true
        hangTimer.arm(after: Self.hangsAfter)
        let (store, ended) = (store, ended)
        do {
            try threads.start(
                path: store.path, hangsAt: MonotonicClock.nanoseconds() &+ UInt64(Self.hangsAfter * 1e9),
                named: "ms-state",
                work: {
                    let failure: StateStoreError?
                    do throws(StateStoreError) {
                        try store.save(state)
                        failure = nil
                    } catch {
                        failure = error
                    }
                    ended.post(change: change, failure: failure)
                },
                // Its thread is joined when the display thread takes the result.
                finished: { _ in })
        } catch {
            isWriting = false
            hangTimer.disarm()
            onWritten(change, StateStoreError(path: store.path, operation: "start a thread for", reason: "\(error)"))
        }
    }

    /// The writes that ended, on the display thread: each to ``onWritten``; finished threads joined, a hung write
    /// logged once.
    private func takeResults() {
        for path in threads.reap() {
            logger.error(
                "the write of \(path.logSafe) has not returned for \(Self.hangsAfter) s: the state stays unsaved until it does"
            )
        }
        for result in ended.take() {
            isWriting = false
            hangTimer.disarm()
            onWritten(result.change, result.failure)
        }
    }

    /// At exit: waits at most `seconds` for the write under way and takes its result (so that the caller writes only
    /// what it did not include), then takes the eventfd off the loop. - Returns: false when a write is still under way
    /// (a hung disk): writing again would hang too. Its thread may still post, so the eventfd then stays open until
    /// the process ends.
    func finish(waitingAtMost seconds: Double) -> Bool {
        let left = threads.finish(waitingAtMost: seconds)
        takeResults()
        hangTimer.disarm()
        loop.unwatch(ended.fileDescriptor)
        if left == 0 { ended.close() }
        return left == 0
    }
}

/// The writes that ended, handed from their threads to the display thread.
private final class EndedWrites: Sendable {
    /// Readable while a write's end waits (an eventfd: a writing thread adds one, ``take()`` reads it back to 0).
    let fileDescriptor: Int32
    private let list = Mutex<[(change: Int, failure: StateStoreError?)]>([])

    init() throws {
        fileDescriptor = try systemCall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
    }

    /// From a writing thread.
    func post(change: Int, failure: StateStoreError?) {
        list.withLock { $0.append((change, failure)) }
        var one: UInt64 = 1
        _ = Glibc.write(fileDescriptor, &one, 8)
    }

    /// On the display thread.
    func take() -> [(change: Int, failure: StateStoreError?)] {
        var count: UInt64 = 0
        _ = Glibc.read(fileDescriptor, &count, 8)
        return list.withLock { list in
            defer { list.removeAll() }
            return list
        }
    }

    /// Once its watch is gone and no write can post any more.
    func close() { Glibc.close(fileDescriptor) }
}
