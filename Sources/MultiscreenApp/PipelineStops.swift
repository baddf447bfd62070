import Foundation
import Logging
import Media
import Messaging
import SystemCalls

/// Stops video pipelines, each on a thread of its own. Stopping joins GStreamer's threads, and a source thread stuck
/// in a `read(2)` that never returns (a hung network share, a dying disk) makes the stop never return either. Such a
/// pipeline is left behind, its threads and memory lost until exit, but nothing else waits for it: not the reader's
/// next job, not the other files, not the exit. It is at most one per file: a file whose last pipeline is stuck
/// stopping is not read again until that stop returns (``isStuck(path:)``).
///
/// Owned by ``MediaReader``, whose thread starts every stop and joins those that finished (``reap()``), so each stop
/// thread is created and joined in one place; ``finish(waitingAtMost:)`` at exit.
final class PipelineStops: Sendable {
    /// How long a stop may take before it is stuck: a healthy pipeline stops in milliseconds.
    static let hangsAfter = 1.0
    private static let hangsAfterNanoseconds = UInt64(hangsAfter * 1e9)

    private let threads = FileThreads()
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Stops `pipeline` on a new thread (at once on this one if no thread can be made).
    func stop(_ pipeline: VideoPipeline) {
        let path = pipeline.path
        do {
            try threads.start(
                path: path, hangsAt: MonotonicClock.nanoseconds() &+ Self.hangsAfterNanoseconds, named: "media-stop",
                work: { pipeline.stop() },
                finished: { [logger] afterHanging in
                    if afterHanging {
                        logger.notice(
                            "video pipeline left behind stopped at last (its file's read returned): \(path.logSafe)")
                    } else {
                        logger.info("video pipeline stopped: \(path.logSafe)")
                    }
                })
        } catch {
            logger.warning("no thread to stop a video pipeline (\(error)): stopped on the reader's thread")
            pipeline.stop()
        }
    }

    /// Whether a pipeline of the file at `path` is stuck stopping: a read of the file does not return, and reading it
    /// again would hold up the reader's thread or another pipeline the same way. A stop of it still under way and
    /// younger than ``hangsAfter`` is waited for until it is that old, so the answer does not depend on when the
    /// reader's thread got to the stop.
    func isStuck(path: String) -> Bool {
        threads.wait { unfinished, _ in unfinished.filter { $0.path == path }.map(\.hangsAt).max() }
        return threads.hangs(path: path)
    }

    /// Joins the stop threads that finished, and logs once each stop that has taken longer than ``hangsAfter``.
    func reap() {
        for path in threads.reap() {
            logger.warning(
                "a video pipeline could not be stopped within \(Self.hangsAfter) s and is left behind (its file's read does not return); no new one reads the file until it does: \(path.logSafe)"
            )
        }
    }

    /// At exit: waits at most `seconds` for the stops under way, joins every one that finished, and leaves the rest to
    /// the end of the process. - Returns: how many were left.
    @discardableResult
    func finish(waitingAtMost seconds: Double) -> Int {
        let left = threads.finish(waitingAtMost: seconds)
        if left > 0 {
            logger.warning("video pipelines left to the exit, their files' reads not returned: \(left)")
        }
        return left
    }
}
