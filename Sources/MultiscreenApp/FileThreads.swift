import Foundation
import Synchronization
import SystemCalls

/// Threads that each do one piece of work on a file (read a media file, stop a pipeline reading one, write the state
/// file or the proof of play), which may never return: `open(2)`, `read(2)`, `fsync(2)` and the joins of GStreamer's
/// threads cannot be interrupted when the file hangs (a hung network share, a dying disk). Each piece gets a thread of
/// its own, so such a file holds up that thread only. A piece still under way at its `hangsAt` counts as hung; its
/// thread is left to its work, and joined if it ever finishes.
///
/// The mechanism under ``FileReads``, ``PipelineStops`` and ``FileWriter``, which say what the work is, when it hangs
/// and what is logged. Each thread is created in ``start(path:hangsAt:named:work:finished:)`` and joined in ``reap()``
/// (on the thread of the owner: the media reader's, or the display thread for the files it writes), or in
/// ``finish(waitingAtMost:)`` (at exit).
final class FileThreads: Sendable {
    /// One piece of work on the file at `path`.
    struct Piece {
        let path: String
        /// When it began, and from when it counts as hung (``MonotonicClock`` ns).
        let started: UInt64
        let hangsAt: UInt64
        fileprivate let thread: LoopThread
        fileprivate(set) var finished = false
        /// Handed out by ``reap()`` as hung.
        fileprivate(set) var reported = false

        func hangs(at now: UInt64) -> Bool { !finished && now >= hangsAt }
    }

    private let pieces = Mutex<(next: Int, byID: [Int: Piece])>((0, [:]))
    /// Broadcast when a piece finishes, for ``wait(_:)``.
    private let finishing = NSCondition()

    /// Runs `work` on a new thread called `name`, then `finished` there, told whether the piece had been handed out as
    /// hung by then. - Throws: when no thread can be made (nothing was run).
    func start(
        path: String, hangsAt: UInt64, named name: String, work: @escaping @Sendable () -> Void,
        finished: @escaping @Sendable (_ afterHanging: Bool) -> Void
    ) throws(SystemCallError) {
        let thread = LoopThread()
        let id = pieces.withLock { pieces in
            defer { pieces.next += 1 }
            pieces.byID[pieces.next] = Piece(
                path: path, started: MonotonicClock.nanoseconds(), hangsAt: hangsAt, thread: thread)
            return pieces.next
        }
        do {
            // Threads inherit their creator's niceness: the media reader's thread already runs below the display's.
            try thread.start(name: name) { [self] in
                work()
                let late = pieces.withLock { pieces in
                    pieces.byID[id]?.finished = true
                    return pieces.byID[id]?.reported == true
                }
                finishing.lock()
                finishing.broadcast()
                finishing.unlock()
                finished(late)
            }
        } catch {
            pieces.withLock { _ = $0.byID.removeValue(forKey: id) }
            throw error
        }
    }

    /// Waits while `until` gives a time (``MonotonicClock`` ns) still to come, asking it again at each finish and at
    /// that time; `until` sees the unfinished pieces and the time now.
    func wait(_ until: (_ unfinished: [Piece], _ now: UInt64) -> UInt64?) {
        finishing.lock()
        defer { finishing.unlock() }
        while true {
            let now = MonotonicClock.nanoseconds()
            let unfinished = pieces.withLock { $0.byID.values.filter { !$0.finished } }
            guard let due = until(unfinished, now), now < due else { return }
            // In slices of the monotonic clock: the condition's deadline is the wall clock's, which may be stepped.
            _ = finishing.wait(until: Date(timeIntervalSinceNow: min(Double(due - now) / 1e9, 0.1)))
        }
    }

    /// Whether a piece of work on the file at `path` hangs now.
    func hangs(path: String) -> Bool {
        let now = MonotonicClock.nanoseconds()
        return pieces.withLock { $0.byID.values.contains { $0.path == path && $0.hangs(at: now) } }
    }

    /// Joins the threads of the pieces that finished. - Returns: the files of the pieces that hang and were not handed
    /// out yet (each is handed out once); only those of the file at `path` when one is given, for an owner that
    /// shares these threads with others, each reporting its own.
    func reap(hungOf path: String? = nil) -> [String] {
        let (finished, hung) = pieces.withLock { pieces -> ([LoopThread], [String]) in
            let now = MonotonicClock.nanoseconds()
            var finished: [LoopThread] = []
            var hung: [String] = []
            for (id, piece) in pieces.byID {
                if piece.finished {
                    finished.append(piece.thread)
                    pieces.byID[id] = nil
                } else if !piece.reported, piece.hangs(at: now), path == nil || piece.path == path {
                    pieces.byID[id]?.reported = true
                    hung.append(piece.path)
                }
            }
            return (finished, hung)
        }
        for thread in finished { thread.stop {} }
        return hung
    }

    /// At exit: waits at most `seconds` for the pieces under way, joins every one that finished, and leaves the rest
    /// to the end of the process. - Returns: how many were left.
    func finish(waitingAtMost seconds: Double) -> Int {
        let deadline = MonotonicClock.nanoseconds() &+ UInt64(seconds * 1e9)
        wait { unfinished, _ in unfinished.isEmpty ? nil : deadline }
        _ = reap()
        return pieces.withLock { $0.byID.count }
    }
}
