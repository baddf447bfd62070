import Foundation
import Logging
import Media
import Synchronization
import SystemCalls

/// Runs each read of a media file (a screen's file, a video's length) on a thread of its own, and waits for it at most
/// ``givenUpAfter``. A file whose first bytes never come (a hung network share, a dying disk) would otherwise hold up
/// the reader's thread, and with it every later read and the exit: `open(2)`, `read(2)` and GStreamer's discoverer
/// cannot be interrupted. Such a read is given up: the thread is left to its read, and the file is not read again
/// while it has not returned (``isHung(path:)``), so a file costs at most one thread.
///
/// A read given up still posts what it finds when it returns, as one that was never given up would: the display
/// takes a late picture or pipeline for a file it still shows, and stops or drops one it no longer waits for.
///
/// Owned by ``MediaReader``, whose thread starts every read and joins it (at once, or in ``reap()`` once a given-up
/// read has returned), so each read thread is created and joined in one place; ``finish()`` at exit.
final class FileReads: Sendable {
    private struct Read {
        let thread: LoopThread
        let path: String
        var finished = false
        var givenUp = false
    }

    /// How long a read may take: as long as a screen waits for its file (``MediaScreens/readTimeout``), so a read
    /// the screen still waits for is never given up. A 50-megapixel JPEG decodes in half a second here, a 100-megapixel
    /// PNG (the largest ``ImageLimits`` lets through) in three and a half.
    static let givenUpAfter = MediaScreens.readTimeout

    private let reads = Mutex<(next: Int, byID: [Int: Read])>((0, [:]))
    /// Broadcast when a read finishes, for the reader's thread waiting for it.
    private let finishing = NSCondition()
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Runs `read` on a new thread (on this one if no thread can be made) and returns when it has finished, or after
    /// ``givenUpAfter`` (returning `failure`, which nobody else would report then).
    func run(path: String, failure: MediaReader.News?, _ read: @escaping @Sendable () -> Void) -> MediaReader.News? {
        let thread = LoopThread()
        let id = reads.withLock { reads in
            defer { reads.next += 1 }
            reads.byID[reads.next] = Read(thread: thread, path: path)
            return reads.next
        }
        do {
            try thread.start(name: "media-read", niceness: MediaReader.niceness) { [self] in
                read()
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
            read()
            return nil
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
            if reads.byID[id]?.finished != false {
                reads.byID[id] = nil
                return true
            }
            reads.byID[id]?.givenUp = true
            return false
        }
        if finished {
            thread.stop {}
            return nil
        }
        logger.warning(
            "a media read has not returned within \(Self.givenUpAfter) s and is given up (the file's read hangs); the file is not read again until it returns: \(path.logSafe)"
        )
        return failure
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
