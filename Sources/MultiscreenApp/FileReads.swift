import Foundation
import Logging
import Media
import Synchronization
import SystemCalls

/// Runs each read of a media file (a screen's file, a video's length) on a thread of its own, so that the reader's
/// thread never waits on a file. A file whose first bytes never come (a hung network share, a dying disk) holds up
/// only its own read: `open(2)`, `read(2)` and GStreamer's discoverer cannot be interrupted, so such a thread is left
/// to its read. A read still under way when the screens stop waiting for it (``MediaScreens/readTimeout`` after they
/// asked) counts as hung, and the file is not read again until it returns (``isHung(path:)``): a hung file costs a
/// thread per way it was being read (a screen's file, its length), never one per retry. A read that is slow rather than hung is treated alike: a 50-megapixel JPEG decodes in
/// half a second on the 2-core test machine, a 100-megapixel PNG (the largest ``ImageLimits`` lets through) in three
/// and a half.
///
/// At most ``concurrentReads`` reads start at once (decoding is work for the machine's cores, and each decode holds its
/// pixels), but a read under way for ``placeHeldFor`` gives its place up: a file that hangs, or two of one dead share,
/// hold up the next reads for that moment only, never for a screen's whole deadline.
///
/// A read posts what it finds whenever it returns; the display takes it only while the file's asset still waits for
/// it (``MediaScreens``), and stops or drops what comes too late.
///
/// Owned by ``MediaReader``, whose thread starts every read and joins those that finished (``reap()``), so each read
/// thread is created and joined in one place; ``finish(waitingAtMost:)`` joins at exit, after the reader's thread.
final class FileReads: Sendable {
    private struct Read {
        let thread: LoopThread
        let path: String
        /// When it began, and when it counts as hung (``MonotonicClock`` ns).
        let started: UInt64
        let hangsAt: UInt64
        var finished = false
        /// Logged as hung.
        var reported = false
    }

    /// Reads started at once and holding a place (``placeHeldFor``).
    static let concurrentReads = 2
    /// How long a read holds its place, in seconds: most pictures decode and most pipelines are built within it.
    static let placeHeldFor = 1.0
    private static let placeHeldForNanoseconds = UInt64(placeHeldFor * 1e9)

    private let reads = Mutex<(next: Int, byID: [Int: Read])>((0, [:]))
    /// Broadcast when a read finishes, for the thread waiting for a free place (``waitForAPlace()``) or for the exit.
    private let finishing = NSCondition()
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Starts `read` on a new thread (runs it on this one if no thread can be made); it counts as hung from `hangsAt`
    /// (``MonotonicClock`` ns) on. Call ``waitForAPlace()`` first.
    func start(path: String, hangsAt: UInt64, _ read: @escaping @Sendable () -> Void) {
        let thread = LoopThread()
        let id = reads.withLock { reads in
            defer { reads.next += 1 }
            reads.byID[reads.next] = Read(
                thread: thread, path: path, started: MonotonicClock.nanoseconds(), hangsAt: hangsAt)
            return reads.next
        }
        do {
            // Threads inherit their creator's niceness: the reader's thread already runs below the display's.
            try thread.start(name: "media-read") { [self] in
                read()
                let late = reads.withLock { reads in
                    reads.byID[id]?.finished = true
                    return reads.byID[id]?.reported == true
                }
                finishing.lock()
                finishing.broadcast()
                finishing.unlock()
                if late { logger.notice("a media read that hung has returned: \(path.logSafe)") }
            }
        } catch {
            reads.withLock { _ = $0.byID.removeValue(forKey: id) }
            logger.warning("no thread to read a media file (\(error)): read on the reader's thread")
            read()
        }
    }

    /// Waits (at most ``placeHeldFor``) while ``concurrentReads`` reads hold a place.
    func waitForAPlace() {
        finishing.lock()
        defer { finishing.unlock() }
        while true {
            let now = MonotonicClock.nanoseconds()
            let releases = reads.withLock { reads in
                reads.byID.values.filter { !$0.finished }.map { $0.started &+ Self.placeHeldForNanoseconds }.filter {
                    now < $0
                }
            }
            guard releases.count >= Self.concurrentReads, let release = releases.min() else { return }
            // In slices of the monotonic clock: the condition's deadline is the wall clock's, which may be stepped.
            _ = finishing.wait(until: Date(timeIntervalSinceNow: min(Double(release - now) / 1e9, 0.1)))
        }
    }

    /// Whether a read of the file at `path` hangs: reading it again would hang the same way.
    func isHung(path: String) -> Bool {
        let now = MonotonicClock.nanoseconds()
        return reads.withLock { reads in
            reads.byID.values.contains { $0.path == path && !$0.finished && now >= $0.hangsAt }
        }
    }

    /// Joins the read threads that finished, and logs once each read that hangs.
    func reap() {
        let (finished, hung) = reads.withLock { reads -> ([LoopThread], [String]) in
            let now = MonotonicClock.nanoseconds()
            var finished: [LoopThread] = []
            var hung: [String] = []
            for (id, read) in reads.byID {
                if read.finished {
                    finished.append(read.thread)
                    reads.byID[id] = nil
                } else if !read.reported, now >= read.hangsAt {
                    reads.byID[id]?.reported = true
                    hung.append(read.path)
                }
            }
            return (finished, hung)
        }
        for thread in finished { thread.stop {} }
        for path in hung {
            logger.warning(
                "a media read has not returned within \(MediaScreens.readTimeout) s (the file's read hangs); the file is not read again until it does: \(path.logSafe)"
            )
        }
    }

    /// At exit, once the reader's thread has ended: waits at most `seconds` for the reads under way, joins every one
    /// that finished, and leaves the rest to the end of the process. - Returns: how many were left.
    @discardableResult
    func finish(waitingAtMost seconds: Double) -> Int {
        let deadline = MonotonicClock.nanoseconds() &+ UInt64(seconds * 1e9)
        finishing.lock()
        while reads.withLock({ $0.byID.values.contains { !$0.finished } }) {
            let now = MonotonicClock.nanoseconds()
            guard now < deadline else { break }
            _ = finishing.wait(until: Date(timeIntervalSinceNow: min(Double(deadline - now) / 1e9, 0.1)))
        }
        finishing.unlock()
        reap()
        let left = reads.withLock { $0.byID.count }
        if left > 0 { logger.warning("media reads left to the exit, their files' reads not returned: \(left)") }
        return left
    }

    /// Why a file with a hung read is not read again.
    static func hung(_ path: String) -> MediaError {
        .unreadable(path: path, reason: "a read of it has not returned for over \(MediaScreens.readTimeout) s")
    }
}
