import Foundation
import Logging
import Media
import Synchronization
import SystemCalls

/// Runs each read of a media file (a screen's file, a video's length) on a thread of its own, and waits for it at most
/// ``givenUpAfter``. A file whose first bytes never come (a hung network share, a dying disk) would otherwise hold up
/// the reader's thread, and with it every later read and the exit: `open(2)`, `read(2)` and GStreamer's discoverer
/// cannot be interrupted. Such a read is given up: its failure is posted at once, the thread is left to its read, and
/// the file is not read again while it has not returned (``isHung(path:)``), so a file costs at most one thread.
///
/// What a read posts goes through a gate (``Post``): once the read is given up, nothing more of it is posted, so the
/// display never hears of a file both as failed and, later, as read. A video pipeline built after that is stopped.
///
/// Owned by ``MediaReader``, whose thread starts every read and joins it (at once, or in ``reap()`` once a given-up
/// read has returned), so each read thread is created and joined in one place; ``finish()`` at exit.
final class FileReads: Sendable {
    /// Posts a read's news unless the read has been given up; false when it has (the news was not posted).
    typealias Post = @Sendable (MediaReader.News) -> Bool

    private struct Read {
        let thread: LoopThread
        let path: String
        var finished = false
        /// Something of the read was posted: giving it up posts no failure then (the display has its own deadline).
        var posted = false
        var givenUp = false
    }

    /// How long a read may take: a 50-megapixel JPEG decodes well within it; under the display's own deadline
    /// (``MediaScreens/readTimeout``), so the failure it sees names the hung read.
    static let givenUpAfter = 3.0

    private let reads = Mutex<(next: Int, byID: [Int: Read])>((0, [:]))
    /// Broadcast when a read finishes, for the reader's thread waiting for it.
    private let finishing = NSCondition()
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Runs `read` on a new thread (on this one if no thread can be made) and returns when it has finished, or after
    /// ``givenUpAfter`` with `failure` posted in its place when it had posted nothing. What `read` posts through its
    /// gate, and `failure`, go to `post`.
    func run(
        path: String, failure: MediaReader.News, posting post: @escaping @Sendable (MediaReader.News) -> Void,
        _ read: @escaping @Sendable (_ post: Post) -> Void
    ) {
        let thread = LoopThread()
        let id = reads.withLock { reads in
            defer { reads.next += 1 }
            reads.byID[reads.next] = Read(thread: thread, path: path)
            return reads.next
        }
        let gate: Post = { [self] news in
            // Under the lock, so that the read cannot be given up between the check and the post.
            reads.withLock { reads in
                guard reads.byID[id]?.givenUp == false else { return false }
                reads.byID[id]?.posted = true
                post(news)
                return true
            }
        }
        do {
            try thread.start(name: "media-read", niceness: MediaReader.niceness) { [self] in
                read(gate)
                let late = reads.withLock { reads in
                    reads.byID[id]?.finished = true
                    return reads.byID[id]?.givenUp == true
                }
                finishing.lock()
                finishing.broadcast()
                finishing.unlock()
                if late { logger.notice("a media read given up has returned at last: \(path.logSafe)") }
            }
        } catch {
            reads.withLock { _ = $0.byID.removeValue(forKey: id) }
            logger.warning("no thread to read a media file (\(error)): read on the reader's thread")
            read { news in
                post(news)
                return true
            }
            return
        }
        let deadline = MonotonicClock.nanoseconds() &+ UInt64(Self.givenUpAfter * 1e9)
        finishing.lock()
        while reads.withLock({ $0.byID[id]?.finished == false }) {
            let now = MonotonicClock.nanoseconds()
            guard now < deadline else { break }
            // In slices of the monotonic clock: the condition's deadline is the wall clock's, which may be stepped.
            _ = finishing.wait(until: Date(timeIntervalSinceNow: min(Double(deadline - now) / 1e9, 0.1)))
        }
        finishing.unlock()
        let finished = reads.withLock { reads -> Bool in
            guard let read = reads.byID[id] else { return true }
            if read.finished {
                reads.byID[id] = nil
                return true
            }
            reads.byID[id]?.givenUp = true
            if !read.posted { post(failure) }
            return false
        }
        if finished {
            thread.stop {}
        } else {
            logger.warning(
                "a media read has not returned within \(Self.givenUpAfter) s and is given up (the file's read hangs); the file is not read again until it returns: \(path.logSafe)"
            )
        }
    }

    /// Whether a read of the file at `path` was given up and has not returned: reading it again would hang the same
    /// way.
    func isHung(path: String) -> Bool {
        reads.withLock { $0.byID.values.contains { $0.path == path && $0.givenUp && !$0.finished } }
    }

    /// Joins the threads of given-up reads that have returned.
    func reap() {
        let finished = reads.withLock { reads -> [LoopThread] in
            let done = reads.byID.filter { $0.value.finished }
            for id in done.keys { reads.byID[id] = nil }
            return done.values.map(\.thread)
        }
        for thread in finished { thread.stop {} }
    }

    /// At exit: joins what has returned and leaves the rest to the end of the process. - Returns: how many were left.
    @discardableResult
    func finish() -> Int {
        reap()
        let left = reads.withLock { $0.byID.count }
        if left > 0 { logger.warning("media reads left to the exit, their files' reads not returned: \(left)") }
        return left
    }

    /// Why a file with a given-up read is not read again.
    static func hung(_ path: String) -> MediaError {
        .unreadable(path: path, reason: "a read of it has not returned for over \(givenUpAfter) s")
    }
}
