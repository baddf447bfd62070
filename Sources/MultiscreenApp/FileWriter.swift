import Logging
import Messaging
import Screens
import Synchronization
import SystemCalls
import Wayland

/// Writes one file off the display thread: the state file, or the lines of the proof-of-play log. A write is
/// microseconds to milliseconds on an SSD, tens of milliseconds on an SD card (the state's two `fsync`s), and on a
/// dying card or a hung network home it may not return at all, even its `open`. None of that may hold up a frame or a
/// reply.
///
/// One write at a time, each on a thread of its own (``FileThreads``): ``write(_:work:)`` hands the work over with a
/// count the caller gives meaning to (the changes a state write includes, the lines a log write holds), and how the
/// write went comes back to the display thread through an eventfd watched on its loop, as ``onWritten``. A write
/// still under way after ``hangsAfter`` counts as hung and is logged once: ``isReady`` stays false, so no other
/// write piles up behind it. Made with the application, on threads it shares with the other writers; at exit
/// ``finishing(last:)`` says what each writes last, and ``finish(_:sharing:by:)`` starts each writer's last write as
/// soon as its write under way has ended and waits for them all to one deadline: the exit is held up by a hung disk
/// for ``hangsAfter`` at most, whatever the number of writers.
final class FileWriter {
    /// How long a write may take before it counts as hung (and is logged as such).
    static let hangsAfter = 10.0

    /// A write ended: the count it was given, and its failure if it failed. On the display thread.
    var onWritten: (_ count: Int, _ failure: StateStoreError?) -> Void = { _, _ in }
    /// A write may start: none is under way (or hung), and ``finishing(last:)`` has not begun.
    var isReady: Bool { writeHangsAt == nil && !isFinished }
    /// When the write under way counts as hung (``MonotonicClock`` ns); nil while none is.
    private var writeHangsAt: UInt64?
    /// How long the write under way (or the last one) was given before it counts as hung, in seconds: ``hangsAfter``,
    /// or what was left of the exit's deadline for a last write. As its hang is logged.
    private var writeGiven = 0.0
    private var isFinished = false
    /// The last write's, asked once no write is under way; nil once asked.
    private var last: (() -> Write?)?
    /// A write as its owner hands it over: the count ``onWritten`` gets back, and the work done on the thread.
    typealias Write = (count: Int, work: @Sendable () throws(StateStoreError) -> Void)

    /// The file written, as logged.
    let path: String
    /// The name of each write's thread.
    private let threadName: String
    /// What a failed write could not do, as its error says: "save state".
    private let task: String
    /// What a hung write means to the user, for the log: "the state stays unsaved until it does".
    private let whileHung: String
    private let loop: EventLoop
    /// Shared with the other writers, so that the exit can wait for all of them at once.
    private let threads: FileThreads
    /// Fires ``hangsAfter`` into a write, to say it hangs (a hung write sends no news).
    private let hangTimer: OneShotTimer
    /// The writes that ended, handed from their threads to the display thread. Its eventfd closes with it: a hung
    /// write's thread holds it until the process ends.
    private let ended: Mailbox<EndedWrite>
    private let logger: Logger

    init(
        path: String, task: String, threadName: String, whileHung: String, threads: FileThreads, loop: EventLoop,
        logger: Logger
    ) throws {
        self.path = path
        self.threads = threads
        self.task = task
        self.threadName = threadName
        self.whileHung = whileHung
        self.loop = loop
        self.logger = logger
        hangTimer = try OneShotTimer(on: loop)
        ended = try Mailbox()
        loop.watch(ended.wakeDescriptor) { [unowned self] in takeResults() }
        hangTimer.fired = { [unowned self] in takeResults() }
    }

    /// Runs `work` on a thread of its own; ``onWritten`` gets `count` and what `work` threw. Only while ``isReady``.
    func write(_ count: Int, work: @escaping @Sendable () throws(StateStoreError) -> Void) {
        precondition(isReady, "one write of \(path) at a time, none once finishing")
        start(count, hangsAt: MonotonicClock.nanoseconds() &+ UInt64(Self.hangsAfter * 1e9), work: work)
    }

    private func start(_ count: Int, hangsAt: UInt64, work: @escaping @Sendable () throws(StateStoreError) -> Void) {
        let now = MonotonicClock.nanoseconds()
        writeGiven = hangsAt > now ? Double(hangsAt - now) / 1e9 : 0
        writeHangsAt = hangsAt
        hangTimer.arm(atMonotonic: hangsAt)
        let (ended, outcome) = (ended, WriteOutcome())
        do {
            try threads.start(
                path: path, hangsAt: hangsAt, named: threadName,
                work: {
                    do throws(StateStoreError) {
                        try work()
                        outcome.value.withLock { $0 = (count, nil) }
                    } catch {
                        outcome.value.withLock { $0 = (count, error) }
                    }
                },
                // Posted only once the piece counts as finished, so that the display thread joins its thread as it
                // takes the result.
                finished: { late in
                    guard let (count, failure) = outcome.value.withLock({ $0 }) else { return }
                    ended.post(EndedWrite(count: count, failure: failure, afterHanging: late))
                })
        } catch {
            writeHangsAt = nil
            hangTimer.disarm()
            onWritten(
                count, StateStoreError(path: path, operation: "start a thread for", reason: "\(error)", task: task))
        }
    }

    /// The writes that ended, on the display thread: each to ``onWritten``; finished threads joined, a hung write
    /// logged once, and a hung one that returned logged too.
    private func takeResults() {
        for path in threads.reap(hungOf: path) {
            logger.error(
                "the write of \(path.logSafe) has not returned for \((writeGiven * 10).rounded() / 10) s: \(whileHung)")
        }
        for result in ended.take().items {
            if result.afterHanging { logger.notice("the hung write of \(path.logSafe) returned") }
            writeHangsAt = nil
            hangTimer.disarm()
            onWritten(result.count, result.failure)
        }
    }

    /// At exit: no write starts from now on but the last, whose count and work `last` gives (nil: nothing is left
    /// to write) once the write under way has ended, so that it writes only what that one did not include.
    func finishing(last: @escaping () -> Write?) {
        isFinished = true
        self.last = last
    }

    /// At exit, for `writers` sharing `threads`: each writer's last write starts as soon as its write under way has
    /// ended (a slow card's write is not thrown away; a hung one gets no second write behind it), and every write
    /// is waited for until `deadline`. Then their eventfds leave the loop.
    /// - Returns: for each writer, whether everything it had to write was handed to a write that ended (failed
    ///   writes included); false when a write still hangs at `deadline`.
    static func finish(_ writers: [FileWriter], sharing threads: FileThreads, by deadline: UInt64) -> [Bool] {
        while true {
            for writer in writers {
                // Joins the finished threads first: their results are posted by then.
                writer.takeResults()
                if writer.writeHangsAt == nil, let last = writer.last {
                    writer.last = nil
                    if let (count, work) = last() { writer.start(count, hangsAt: deadline, work: work) }
                }
            }
            let writing = writers.filter { $0.writeHangsAt != nil }
            guard !writing.isEmpty, MonotonicClock.nanoseconds() < deadline else { break }
            // Until one of them ends (its file has no piece under way any more), or the deadline.
            threads.wait { unfinished, _ in
                writing.contains { writer in !unfinished.contains { $0.path == writer.path } } ? nil : deadline
            }
        }
        for writer in writers {
            writer.hangTimer.disarm()
            writer.loop.unwatch(writer.ended.wakeDescriptor)
        }
        return writers.map { $0.writeHangsAt == nil && $0.last == nil }
    }
}

/// A write's end as the display thread takes it.
private struct EndedWrite: Sendable {
    let count: Int
    let failure: StateStoreError?
    /// It had been reported hung.
    let afterHanging: Bool
}

/// How a write went, from its end (in the piece's work) to the piece's finish, on the writing thread.
private final class WriteOutcome: Sendable {
    let value = Mutex<(count: Int, failure: StateStoreError?)?>(nil)
}
