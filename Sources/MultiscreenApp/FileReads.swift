import Foundation
import Logging
import Media

/// Runs each read of a media file (a screen's file, a video's length) on a thread of its own, so that the reader's
/// thread never waits on a file. A file whose first bytes never come (a hung network share, a dying disk) holds up
/// only its own read: `open(2)`, `read(2)` and GStreamer's discoverer cannot be interrupted, so such a thread is left
/// to its read. A read still under way when the screens stop waiting for it (``MediaScreens/readTimeout`` after they
/// asked) counts as hung, and the file is not read again until it returns (``isHung(path:)``): a hung file costs a
/// thread per way it was being read (a screen's file, its length), never one per retry. A read that is slow rather
/// than hung is treated alike: a 50-megapixel JPEG decodes in half a second on the 2-core test machine, a
/// 100-megapixel PNG (the largest ``ImageLimits`` lets through) in three and a half.
///
/// At most ``concurrentReads`` reads start at once (decoding is work for the machine's cores, and each decode holds its
/// pixels), but a read under way for ``placeHeldFor`` gives its place up: a file that hangs, or two of one dead share,
/// hold up the next reads for that moment only, never for a screen's whole deadline.
///
/// A read posts what it finds whenever it returns; the display takes it only while the file's asset still waits for
/// it (``MediaScreens``), and stops or drops what comes too late.
///
/// Owned by ``MediaReader``, whose thread starts every read and reaps those that finished (``reap()``). The threads are
/// a ``FileThreads``'s.
final class FileReads: Sendable {
    /// Reads started at once and holding a place (``placeHeldFor``).
    static let concurrentReads = 2
    /// How long a read holds its place, in seconds: most pictures decode and most pipelines are built within it.
    static let placeHeldFor = 1.0
    private static let placeHeldForNanoseconds = UInt64(placeHeldFor * 1e9)

    private let threads = FileThreads()
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Starts `read` on a new thread (runs it on this one if no thread can be made); it counts as hung from `hangsAt`
    /// (``MonotonicClock`` ns) on. Call ``waitForAPlace()`` first.
    func start(path: String, hangsAt: UInt64, _ read: @escaping @Sendable () -> Void) {
        do {
            try threads.start(
                path: path, hangsAt: hangsAt, named: "media-read", work: read,
                finished: { [logger] afterHanging in
                    if afterHanging { logger.notice("a media read that hung has returned: \(path.logSafe)") }
                })
        } catch {
            logger.warning("no thread to read a media file (\(error)): read on the reader's thread")
            read()
        }
    }

    /// Waits (at most ``placeHeldFor``) while ``concurrentReads`` reads hold a place.
    func waitForAPlace() {
        threads.wait { unfinished, now in
            let releases = unfinished.map { $0.started &+ Self.placeHeldForNanoseconds }.filter { now < $0 }
            return releases.count >= Self.concurrentReads ? releases.min() : nil
        }
    }

    /// Whether a read of the file at `path` hangs: reading it again would hang the same way.
    func isHung(path: String) -> Bool { threads.hangs(path: path) }

    /// Joins the read threads that finished, and logs once each read that hangs.
    func reap() {
        for path in threads.reap() {
            logger.warning(
                "a media read has not returned within \(MediaScreens.readTimeout) s (the file's read hangs); the file is not read again until it does: \(path.logSafe)"
            )
        }
    }

    /// At exit, once the reader's thread has ended: waits at most `seconds` for the reads under way, joins every one
    /// that finished, and leaves the rest to the end of the process. - Returns: how many were left.
    @discardableResult
    func finish(waitingAtMost seconds: Double) -> Int {
        let left = threads.finish(waitingAtMost: seconds)
        if left > 0 { logger.warning("media reads left to the exit, their files' reads not returned: \(left)") }
        return left
    }

    /// Why a file with a hung read is not read again.
    static func hung(_ path: String) -> MediaError {
        .unreadable(path: path, reason: "a read of it has not returned for over \(MediaScreens.readTimeout) s")
    }
}
