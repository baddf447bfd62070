/// A message waiting to be shown on one screen: its id and its ``MonotonicClock`` stamps.
public struct PendingMessage: Equatable, Sendable {
    public var id: UInt64
    /// When its producer enqueued it (`CLOCK_MONOTONIC` ns).
    public var enqueuedAt: UInt64
    /// When the display thread drained it from the ring.
    public var drainedAt: UInt64

    public init(id: UInt64, enqueuedAt: UInt64, drainedAt: UInt64) {
        self.id = id
        self.enqueuedAt = enqueuedAt
        self.drainedAt = drainedAt
    }
}

/// What became of one committed frame that carried messages, or of messages that never reached a frame.
public struct FrameLatencyReport: Equatable, Sendable {
    public enum Source: String, Sendable {
        /// `wp_presentation_feedback.presented`, converted to `CLOCK_MONOTONIC`.
        case presented
        /// The frame callback's arrival, where `presented` never came (sway 1.7 headless, no `wp_presentation`,
        /// too many feedbacks outstanding): an upper bound of the commit's turn, not a presentation time.
        case frameDone
        /// Never shown: the window went away, or the frame's record was evicted (see ``MessageLatencyTracker``).
        case lost
    }

    /// The screen's frame counter: which commit this was.
    public var frame: UInt64
    public var source: Source
    /// When the frame was committed (`CLOCK_MONOTONIC` ns).
    public var committedAt: UInt64
    /// When it was shown (`CLOCK_MONOTONIC` ns): presented, or the frame callback; nil when lost.
    public var shownAt: UInt64?
    /// The presentation `seq`, 0 when unknown or not from `presented`.
    public var sequence: UInt64 = 0
    public var refreshNanoseconds: UInt64 = 0
    public var flags: PresentationFlags = []
    /// Vblanks this frame missed (``MissedVblankCounter``).
    public var missedVblanks = 0
    /// The messages this frame is the first to show (a burst coalesces into one frame).
    public var messages: [PendingMessage]
    /// With a ``FlashPatch``: whether this frame turned the patch white (false: black); nil without one.
    public var patchWhite: Bool?

    public init(frame: UInt64, source: Source, committedAt: UInt64, shownAt: UInt64?, messages: [PendingMessage]) {
        self.frame = frame
        self.source = source
        self.committedAt = committedAt
        self.shownAt = shownAt
        self.messages = messages
    }

    /// Message → shown, per message, in ns (empty when lost).
    public var latencies: [UInt64] {
        guard let shownAt else { return [] }
        return messages.map { shownAt > $0.enqueuedAt ? shownAt - $0.enqueuedAt : 0 }
    }
}

/// Follows every message of one screen from drain to the frame that first shows it, and says when it was shown.
///
/// Messages drained since the last commit ride on the next committed frame. That frame's fate decides:
/// - `presented`: shown at the presented time (the screen's figures come from here);
/// - `discarded` on a compositor that sends `presented` (the frame was replaced before a vblank): its messages move
///   to the next frame, which shows the same state and more; if none is committed yet they wait for one, and
///   ``discarded(frame:)`` says to draw again;
/// - no feedback object (no `wp_presentation`, too many outstanding), or a screen that never saw `presented`
///   (sway 1.7 headless): the frame callback's time, labelled ``FrameLatencyReport/Source/frameDone``;
/// - the window goes away first: ``FrameLatencyReport/Source/lost``.
///
/// Pure: the screen feeds it its commits, feedback and frame callbacks. Nothing here runs when no message
/// arrives, so an idle screen costs nothing.
public struct MessageLatencyTracker: Sendable {
    private enum Feedback: Equatable, Sendable {
        case pending
        case none
        case discarded
    }

    private struct Frame: Sendable {
        var number: UInt64
        var committedAt: UInt64
        var committedAtPresentationClock: UInt64
        var messages: [PendingMessage]
        var feedback: Feedback
        var doneAt: UInt64?
    }

    /// Frames remembered while their feedback is outstanding; older ones are given up as lost. Far above the
    /// screen's limit of outstanding feedback objects.
    public static let maximumFrames = 64

    private var waiting: [PendingMessage] = []
    private var frames: [Frame] = []
    public private(set) var sawPresented = false
    public private(set) var vblanks = MissedVblankCounter()

    public init() {}

    /// Messages not yet committed in any frame.
    public var waitingCount: Int { waiting.count }

    /// Messages kept waiting for a frame at most: a screen that never draws (hidden, or drawn inside another
    /// window) must not collect them forever. The oldest beyond it are given up as lost.
    public static let maximumWaiting = 1024

    /// A message was drained for this screen. - Returns: a report of the oldest waiting message when there were
    /// too many (lost), normally nil.
    public mutating func messageArrived(_ message: PendingMessage) -> FrameLatencyReport? {
        waiting.append(message)
        guard waiting.count > Self.maximumWaiting else { return nil }
        let oldest = waiting.removeFirst()
        return FrameLatencyReport(frame: 0, source: .lost, committedAt: 0, shownAt: nil, messages: [oldest])
    }

    /// The screen's content is drawn inside another screen's window (cage), which reports these messages itself.
    public mutating func forgetWaiting() { waiting.removeAll() }

    /// A frame was committed. - Parameter withFeedback: a `wp_presentation_feedback` was requested for it.
    /// - Returns: reports of frames given up to make room (lost), normally none.
    public mutating func committed(
        frame number: UInt64, at committedAt: UInt64, presentationClock: UInt64, withFeedback: Bool
    ) -> [FrameLatencyReport] {
        frames.append(
            Frame(
                number: number, committedAt: committedAt, committedAtPresentationClock: presentationClock,
                messages: waiting, feedback: withFeedback ? .pending : .none))
        waiting.removeAll()
        var reports: [FrameLatencyReport] = []
        while frames.count > Self.maximumFrames {
            let old = frames.removeFirst()
            if !old.messages.isEmpty {
                reports.append(
                    FrameLatencyReport(
                        frame: old.number, source: .lost, committedAt: old.committedAt, shownAt: nil,
                        messages: old.messages))
            }
        }
        return reports
    }

    /// `presented` for `frame`. - Parameters: `presentedAt` converted to `CLOCK_MONOTONIC`; `timing` as sent (its
    /// timestamp in the presentation clock, compared with the commit time read from that clock).
    public mutating func presented(frame number: UInt64, presentedAt: UInt64, timing: PresentationTiming)
        -> FrameLatencyReport?
    {
        sawPresented = true
        guard let index = frames.firstIndex(where: { $0.number == number }) else { return nil }
        let frame = frames.remove(at: index)
        let missed = vblanks.presented(
            sequence: timing.sequence, presentedAt: timing.timestampNanoseconds,
            committedAt: frame.committedAtPresentationClock, refreshNanoseconds: UInt64(timing.refreshNanoseconds))
        guard !frame.messages.isEmpty else { return nil }
        var report = FrameLatencyReport(
            frame: number, source: .presented, committedAt: frame.committedAt, shownAt: presentedAt,
            messages: frame.messages)
        report.sequence = timing.sequence
        report.refreshNanoseconds = UInt64(timing.refreshNanoseconds)
        report.flags = timing.flags
        report.missedVblanks = missed
        return report
    }

    /// `discarded` for `frame`. - Returns: a report when the frame-done fallback applies and its time is known,
    /// and whether the screen must draw again to show messages that lost their frame.
    public mutating func discarded(frame number: UInt64) -> (report: FrameLatencyReport?, redraw: Bool) {
        guard let index = frames.firstIndex(where: { $0.number == number }) else { return (nil, false) }
        if sawPresented {
            let frame = frames.remove(at: index)
            guard !frame.messages.isEmpty else { return (nil, false) }
            if index < frames.count {
                frames[index].messages.insert(contentsOf: frame.messages, at: 0)
                return (nil, false)
            }
            waiting.insert(contentsOf: frame.messages, at: 0)
            return (nil, true)
        }
        frames[index].feedback = .discarded
        return (resolveFallback(at: index), false)
    }

    /// The frame callback requested with `frame`'s commit arrived at `doneAt` (`CLOCK_MONOTONIC`).
    ///
    /// On a screen that has never seen `presented` the frame callback is the answer at once: sway 1.7 headless
    /// answers feedback late or never, and a report must not wait for the next frame, which may never come. (A
    /// compositor that does send `presented` has sent one for the screen's first frames before any message.)
    public mutating func frameDone(frame number: UInt64, at doneAt: UInt64) -> FrameLatencyReport? {
        guard let index = frames.firstIndex(where: { $0.number == number }) else { return nil }
        frames[index].doneAt = doneAt
        return resolveFallback(at: index)
    }

    /// The window is going away: every message not yet shown is lost.
    public mutating func tornDown() -> [FrameLatencyReport] {
        var reports = frames.filter { !$0.messages.isEmpty }.map {
            FrameLatencyReport(
                frame: $0.number, source: .lost, committedAt: $0.committedAt, shownAt: nil, messages: $0.messages)
        }
        if !waiting.isEmpty {
            reports.append(FrameLatencyReport(frame: 0, source: .lost, committedAt: 0, shownAt: nil, messages: waiting))
        }
        frames.removeAll()
        waiting.removeAll()
        return reports
    }

    private mutating func resolveFallback(at index: Int) -> FrameLatencyReport? {
        let frame = frames[index]
        guard let doneAt = frame.doneAt else { return nil }
        let fallback = frame.feedback == .none || !sawPresented
        guard fallback else { return nil }
        frames.remove(at: index)
        guard !frame.messages.isEmpty else { return nil }
        return FrameLatencyReport(
            frame: frame.number, source: .frameDone, committedAt: frame.committedAt, shownAt: doneAt,
            messages: frame.messages)
    }
}

/// Nearest-rank percentiles: the smallest value with at least p % of the values at or below it. No interpolation,
/// so every answer is a value that was measured.
public enum Percentile {
    /// - Parameters: `sorted` ascending; `percent` in 0...100. - Returns: nil for no values.
    public static func nearestRank<Value: Comparable>(_ sorted: [Value], percent: Double) -> Value? {
        guard !sorted.isEmpty else { return nil }
        let p = min(max(percent, 0), 100)
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

/// The last minute of message → shown latencies of one screen, for `status` and the controller UI.
public struct LatencyWindow: Equatable, Sendable {
    public static let span: UInt64 = 60_000_000_000
    /// At most this many samples are kept (a minute of messages at 270/s); the oldest go first.
    public static let capacity = 16_384

    private var samples: [(at: UInt64, latency: UInt64)] = []
    private var start = 0

    public init() {}

    public static func == (a: Self, b: Self) -> Bool {
        a.live.elementsEqual(b.live) { $0.at == $1.at && $0.latency == $1.latency }
    }

    private var live: ArraySlice<(at: UInt64, latency: UInt64)> { samples[start...] }

    /// A message shown `latency` ns after it was enqueued, at `at` (`CLOCK_MONOTONIC`).
    public mutating func record(_ latency: UInt64, at: UInt64) {
        samples.append((at, latency))
        if samples.count - start > Self.capacity { start += 1 }
        // Compact now and then rather than shifting the array at every sample.
        if start > 4096 {
            samples.removeFirst(start)
            start = 0
        }
    }

    /// The latencies recorded within a minute before `now`, ascending.
    public func sortedLatencies(now: UInt64) -> [UInt64] {
        let cutoff = now > Self.span ? now - Self.span : 0
        return live.filter { $0.at >= cutoff }.map(\.latency).sorted()
    }

    /// Count, p50 and p99 over the last minute.
    public func summary(now: UInt64) -> (count: Int, p50: UInt64?, p99: UInt64?) {
        let sorted = sortedLatencies(now: now)
        return (
            sorted.count, Percentile.nearestRank(sorted, percent: 50), Percentile.nearestRank(sorted, percent: 99)
        )
    }
}

/// What a screen knows about its message latency, for `status`: the last minute's figures and the totals.
public struct ScreenLatency: Equatable, Sendable {
    public var window = LatencyWindow()
    /// Messages shown, by source.
    public var presented = 0
    public var frameDone = 0
    public var lost = 0
    public var missedVblanks = 0
    /// Where this screen's times come from now: `presented` once the compositor sent one, else `frameDone`.
    public var source: FrameLatencyReport.Source?
    /// `wp_presentation.clock_id`, as its POSIX name.
    public var clock = "CLOCK_MONOTONIC"

    public init() {}

    public mutating func record(_ report: FrameLatencyReport, missedVblanks: Int) {
        self.missedVblanks = missedVblanks
        switch report.source {
        case .presented: presented += report.messages.count
        case .frameDone: frameDone += report.messages.count
        case .lost: lost += report.messages.count
        }
        guard let shownAt = report.shownAt else { return }
        if source != .presented { source = report.source }
        for latency in report.latencies { window.record(latency, at: shownAt) }
    }
}

extension ScreenLatency {
    /// The controller UI's figures for this screen, short enough for its row: the last minute's p50/p99, missed
    /// vblanks when there are any, and `(frame cb)` where the times are the frame-done fallback; nil before any
    /// message in the last minute.
    public func panelText(now: UInt64) -> String? {
        let minute = window.summary(now: now)
        guard let p50 = minute.p50, let p99 = minute.p99 else { return nil }
        let missed = missedVblanks > 0 ? " · \(missedVblanks) missed" : ""
        let fallback = source == .presented ? "" : " (frame cb)"
        return "p50 \(Self.tenths(p50)) p99 \(Self.tenths(p99)) ms\(missed)\(fallback)"
    }

    /// Milliseconds with one decimal.
    static func tenths(_ nanoseconds: UInt64) -> String {
        let tenths = (nanoseconds + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
