import Foundation
import Logging
import Media
import Messaging
import Synchronization
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
    private struct Stop {
        let thread: LoopThread
        let path: String
        /// When it began (``MonotonicClock`` ns).
        let since: UInt64
        var finished = false
        /// Logged as left behind.
        var reported = false
    }

    /// How long a stop may take before it is stuck: a healthy pipeline stops in milliseconds. Under the first retry of
    /// a failed file (``MediaScreens/firstRetry``), so that the retry of a stalled video finds its stop stuck.
    static let hangsAfter = 1.0

    private let stops = Mutex<(next: Int, byID: [Int: Stop])>((0, [:]))
    /// Broadcast when a stop finishes, for ``finish(waitingAtMost:)``.
    private let finishing = NSCondition()
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Stops `pipeline` on a new thread (at once on this one if no thread can be made).
    func stop(_ pipeline: VideoPipeline) {
        reap()
        let thread = LoopThread()
        let id = stops.withLock { stops in
            defer { stops.next += 1 }
            stops.byID[stops.next] = Stop(
                thread: thread, path: pipeline.path, since: MonotonicClock.nanoseconds())
            return stops.next
        }
        do {
            try thread.start(name: "media-stop") { [self] in
                pipeline.stop()
                let late = stops.withLock { stops in
                    stops.byID[id]?.finished = true
                    return stops.byID[id]?.reported == true
                }
                finishing.lock()
                finishing.broadcast()
                finishing.unlock()
                let path = pipeline.path.logSafe
                if late {
                    logger.notice("video pipeline left behind stopped at last (its file's read returned): \(path)")
                } else {
                    logger.info("video pipeline stopped: \(path)")
                }
            }
        } catch {
            stops.withLock { _ = $0.byID.removeValue(forKey: id) }
            logger.warning("no thread to stop a video pipeline (\(error)): stopped on the reader's thread")
            pipeline.stop()
        }
    }

    /// Whether a pipeline of the file at `path` has been stopping for longer than ``hangsAfter``: a read of the file
    /// does not return, and reading it again would hold up the reader's thread or another pipeline the same way.
    func isStuck(path: String) -> Bool {
        let now = MonotonicClock.nanoseconds()
        return stops.withLock { stops in
            stops.byID.values.contains { stop in
                stop.path == path && !stop.finished && now - stop.since > UInt64(Self.hangsAfter * 1e9)
            }
        }
    }

    /// Joins the stop threads that finished, and logs once each stop that has taken longer than ``hangsAfter``.
    func reap() {
        let now = MonotonicClock.nanoseconds()
        let (finished, stuck) = stops.withLock { stops -> ([LoopThread], [String]) in
            var finished: [LoopThread] = []
            var stuck: [String] = []
            for (id, stop) in stops.byID {
                if stop.finished {
                    finished.append(stop.thread)
                    stops.byID[id] = nil
                } else if !stop.reported, now - stop.since > UInt64(Self.hangsAfter * 1e9) {
                    stops.byID[id]?.reported = true
                    stuck.append(stop.path)
                }
            }
            return (finished, stuck)
        }
        for thread in finished { thread.stop {} }
        for path in stuck {
            logger.warning(
                "a video pipeline could not be stopped within \(Self.hangsAfter) s and is left behind (its file's read does not return); the file is not read again until it does: \(path.logSafe)"
            )
        }
    }

    /// At exit: waits at most `seconds` for the stops under way, joins every one that finished, and leaves the rest to
    /// the end of the process. - Returns: how many were left.
    @discardableResult
    func finish(waitingAtMost seconds: Double) -> Int {
        let deadline = Date(timeIntervalSinceNow: seconds)
        finishing.lock()
        while stops.withLock({ $0.byID.values.contains { !$0.finished } }), finishing.wait(until: deadline) {}
        finishing.unlock()
        reap()
        let left = stops.withLock { $0.byID.count }
        if left > 0 {
            logger.warning(
                "\(left) video pipelines could not be stopped (their files' reads never returned): left to the exit")
        }
        return left
    }
}
