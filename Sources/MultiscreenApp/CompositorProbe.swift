import SystemCalls
import Wayland

/// Whether the compositor runs, asked when a screen's content has waited unshown past ``ScreenSet/staleAfter``
/// although the compositor took its last commit (frame pacing then waits for that commit's frame callback, and sends
/// nothing the compositor could leave unanswered). One `wl_display.sync` tells the two causes apart:
/// - no answer within ``FrameTimeline/unresponsiveAfter``: the compositor is stopped or stalled as a whole (the
///   screen is stale), and when the answer does come, the time it lost is no screen's fault;
/// - its answer comes soon and, ``grace`` later, the screen still shows nothing: the compositor runs but stopped
///   presenting that window, which recreating the window may cure.
///
/// A compositor stopped before the sync and continued just after it answers soon too; the grace after the answer
/// lets the frame callback the stop held up arrive before anything is judged. One probe serves every screen: they
/// share one compositor.
final class CompositorProbe {
    /// How long a screen may still show nothing after the compositor answered (ns): many refresh periods.
    static let grace: UInt64 = 500_000_000

    /// What is known about the compositor for a screen whose content has been overdue since a given time.
    enum Verdict: Equatable {
        /// Nothing since the content became overdue: send a probe.
        case ask
        /// Judge at this time (``MonotonicClock`` ns) unless the screen is shown or the probe answered before.
        case waitUntil(UInt64)
        /// The probe has been out for ``FrameTimeline/unresponsiveAfter`` without an answer.
        case notAnswering
        /// The compositor answered soon and, a grace later, the screen still shows nothing.
        case running
    }

    private var sentAt: UInt64?
    private var answer: (sentAt: UInt64, at: UInt64)?
    /// The sync in flight (its one owner); cancelled with the probe.
    private var sync: FrameCallback?

    func verdict(overdueSince overdue: UInt64, now: UInt64) -> Verdict {
        if let sentAt {
            let due = sentAt &+ FrameTimeline.unresponsiveAfter
            return now >= due ? .notAnswering : .waitUntil(due)
        }
        guard let answer, answer.sentAt >= overdue, answer.at &- answer.sentAt <= FrameTimeline.unresponsiveAfter
        else { return .ask }
        let due = answer.at &+ Self.grace
        return now >= due ? .running : .waitUntil(due)
    }

    /// Sends a sync unless one is out; `answered` runs on the display thread when the compositor answers, told
    /// whether it answered late (it was not running meanwhile).
    func ask(globals: WaylandGlobals, now: UInt64, answered: @escaping (_ late: Bool) -> Void) {
        guard sentAt == nil else { return }
        sync = globals.requestSync { [unowned self] in
            sync = nil
            answered(recordAnswer(at: MonotonicClock.nanoseconds()))
        }
        // Without a connection to ask on (no sync made) nothing is judged: the probe stays out.
        recordQuestion(at: now)
    }

    /// A sync was sent at `time` (separate from ``ask`` so the rules can be tested without a compositor).
    func recordQuestion(at time: UInt64) {
        sentAt = time
    }

    /// The compositor answered at `time`. - Returns: whether it answered late.
    func recordAnswer(at time: UInt64) -> Bool {
        guard let sent = sentAt else { return false }
        sentAt = nil
        answer = (sent, time)
        return time &- sent > FrameTimeline.unresponsiveAfter
    }

    /// Drops the sync in flight (the connection is closing).
    func cancel() {
        sync?.cancel()
        sync = nil
        sentAt = nil
    }
}
