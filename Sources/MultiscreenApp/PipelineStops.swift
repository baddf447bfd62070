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

    /// How long a stop may take before it is stuck: a healthy pipeline stops in milliseconds.
    static let hangsAfter = 1.0
    private static let hangsAfterNanoseconds = UInt64(hangsAfter * 1e9)

    private let stops = Mutex<(next: Int, byID: [Int: Stop])>((0, [:]))
    /// Broadcast when a stop finishes, for the threads that wait for one (``isStuck(path:)``,
    /// ``finish(waitingAtMost:)``).
    private let finishing = NSCondition()
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Stops `pipeline` on a new thread (at once on this one if no thread can be made).
    func stop(_ pipeline: VideoPipeline) {
        let thread = LoopThread()
        let id = stops.withLock { stops in
            defer { stops.next += 1 }
            stops.byID[stops.next] = Stop(thread: thread, path: pipeline.path, since: MonotonicClock.nanoseconds())
            return stops.next
        }
        do {
            // As low as the reader's thread: a stop is housekeeping.
            try thread.start(name: "media-stop", niceness: MediaReader.niceness) { [self] in
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

    /// Whether a pipeline of the file at `path` is stuck stopping: a read of the file does not return, and reading it
    /// again would hold up the reader's thread or another pipeline the same way. A stop of it still under way and
    /// younger than ``hangsAfter`` is waited for until it is that old, so the answer does not depend on when the
    /// reader's thread got to the stop.
    func isStuck(path: String) -> Bool {
        finishing.lock()
        defer { finishing.unlock() }
        while true {
            let now = MonotonicClock.nanoseconds()
            let youngest = stops.withLock { stops in
                stops.byID.values.filter { $0.path == path && !$0.finished }.map(\.since).max()
            }
            guard let since = youngest else { return false }
            let stuckAt = since &+ Self.hangsAfterNanoseconds
            if now >= stuckAt { return true }
            // In slices of the monotonic clock: the condition's deadline is the wall clock's, which may be stepped.
            _ = finishing.wait(until: Date(timeIntervalSinceNow: min(Double(stuckAt - now) / 1e9, 0.1)))
        }
    }

    /// Joins the stop threads that finished, and logs once each stop that has taken longer than ``hangsAfter``.
    func reap() {
        let stuck = reapFinished()
        for path in stuck {
            logger.warning(
                "a video pipeline could not be stopped within \(Self.hangsAfter) s and is left behind (its file's read does not return); no new one reads the file until it does: \(path.logSafe)"
            )
        }
    }

    /// Joins the stop threads that finished. - Returns: the files of the stops stuck and not reported yet, now
    /// marked reported.
    private func reapFinished() -> [String] {
        let (finished, stuck) = stops.withLock { stops -> ([LoopThread], [String]) in
            let now = MonotonicClock.nanoseconds()
            var finished: [LoopThread] = []
            var stuck: [String] = []
            for (id, stop) in stops.byID {
                if stop.finished {
                    finished.append(stop.thread)
                    stops.byID[id] = nil
                } else if !stop.reported, now >= stop.since &+ Self.hangsAfterNanoseconds {
                    stops.byID[id]?.reported = true
                    stuck.append(stop.path)
                }
            }
            return (finished, stuck)
        }
        for thread in finished { thread.stop {} }
        return stuck
    }

    /// At exit: waits at most `seconds` for the stops under way, joins every one that finished, and leaves the rest to
    /// the end of the process. - Returns: how many were left.
    @discardableResult
    func finish(waitingAtMost seconds: Double) -> Int {
        let deadline = MonotonicClock.nanoseconds() &+ UInt64(seconds * 1e9)
        finishing.lock()
        while stops.withLock({ $0.byID.values.contains { !$0.finished } }) {
            let now = MonotonicClock.nanoseconds()
            guard now < deadline else { break }
            _ = finishing.wait(until: Date(timeIntervalSinceNow: min(Double(deadline - now) / 1e9, 0.1)))
        }
        finishing.unlock()
        _ = reapFinished()
        let left = stops.withLock { $0.byID.count }
        if left > 0 {
            logger.warning(
                "video pipelines left to the exit, their files' reads not returned: \(left)")
        }
        return left
    }
}
