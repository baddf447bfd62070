import SystemCalls
import Wayland

/// Whether the compositor runs, asked when a screen's content has waited unshown for a while: a screen the compositor
/// shows nothing of is either one it stopped presenting (worth recreating its window) or one whose compositor is
/// stopped or hung as a whole (a new window would wait like the old one). One `wl_display.sync` tells them apart:
/// - no answer within ``FrameTimeline/unresponsiveAfter``: the compositor does not answer, and the screen is stale;
/// - an answer later than that: the compositor was not running meanwhile, and the time it lost is no screen's fault;
/// - an answer within it, and still nothing shown ``grace`` later: the compositor runs but stopped presenting.
///
/// A compositor stopped when the sync was sent and continued soon after answers in time too; the grace after the
/// answer lets the frame callback the stop held up arrive before anything is judged. One probe serves every screen:
/// they share one compositor.
final class CompositorProbe {
    /// How long a screen may still show nothing after the compositor answered (ns): many refresh periods.
    static let grace: UInt64 = 500_000_000

    /// What is known about the compositor for a screen whose content has waited long enough to ask.
    enum Verdict: Equatable {
        /// Nothing asked since: send a probe.
        case ask
        /// Judge at this time (``MonotonicClock`` ns) unless the screen is shown or the probe answered before.
        case waitUntil(UInt64)
        /// The probe has been out for ``FrameTimeline/unresponsiveAfter`` without an answer.
        case notAnswering
        /// The compositor answered in time and, a grace later, the screen still shows nothing.
        case running
    }

    private var sentAt: UInt64?
    private var answer: (sentAt: UInt64, at: UInt64)?
    /// The sync in flight (its one owner); cancelled with the probe.
    private var sync: FrameCallback?

    /// - Parameters:
    ///   - askFrom: when the screen's content had waited long enough to ask about (``MonotonicClock`` ns): an answer
    ///     to a question sent before says nothing about it.
    ///   - judgeFrom: when the screen may be judged at the earliest.
    func verdict(askFrom: UInt64, judgeFrom: UInt64, now: UInt64) -> Verdict {
        if let sentAt {
            let due = max(judgeFrom, sentAt &+ FrameTimeline.unresponsiveAfter)
            return now >= due ? .notAnswering : .waitUntil(due)
        }
        guard let answer, answer.sentAt >= askFrom else { return .ask }
        let due = max(judgeFrom, answer.at &+ Self.grace)
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
        // Without a connection to ask on (no sync made) the question stays out unanswered: the screens are stale.
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
        let late = time &- sent > FrameTimeline.unresponsiveAfter
        // A late answer says the compositor was stopped, not that it runs: it rules on nothing.
        answer = late ? nil : (sent, time)
        return late
    }

    /// Drops the sync in flight (the connection is closing).
    func cancel() {
        sync?.cancel()
        sync = nil
        sentAt = nil
    }
}
