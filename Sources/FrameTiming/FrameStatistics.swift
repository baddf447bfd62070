/// Per-output frame accounting from `wp_presentation` feedback.
///
/// Latency is measured from the moment a frame is committed to the moment the compositor reports it presented,
/// both in the presentation clock (`wp_presentation.clock_id`). Where a compositor never sends `presented`
/// (sway 1.7 headless only sends `discarded`), the `wl_surface.frame` done time stands in for it; such frames
/// are counted in ``frameDoneFallbacks`` so a report never passes one off as the other.
public struct FrameStatistics: Equatable, Sendable, Codable {
    public private(set) var committed: Int = 0
    public private(set) var presented: Int = 0
    public private(set) var discarded: Int = 0
    /// Frames whose latency came from the frame callback because no `presented` arrived.
    public private(set) var frameDoneFallbacks: Int = 0
    /// Frames committed without a feedback object: too many were outstanding, or the compositor offers no
    /// `wp_presentation` at all. Reported in `status` with the other counters.
    public private(set) var feedbackSkipped: Int = 0
    public private(set) var lastLatencyNanoseconds: UInt64?
    /// The most recent latencies, newest last, at most ``window`` of them.
    public private(set) var recentLatencies: [UInt64] = []

    public static let window = 120

    public init() {}

    public mutating func recordCommit(withFeedback: Bool) {
        committed += 1
        if !withFeedback { feedbackSkipped += 1 }
    }

    public mutating func recordPresented(latencyNanoseconds: UInt64) {
        presented += 1
        record(latencyNanoseconds)
    }

    public mutating func recordDiscarded() { discarded += 1 }

    public mutating func recordFrameDone(latencyNanoseconds: UInt64) {
        frameDoneFallbacks += 1
        record(latencyNanoseconds)
    }

    /// Median of ``recentLatencies``: robust against the odd slow frame on a loaded machine.
    public var rollingMedianNanoseconds: UInt64? {
        guard !recentLatencies.isEmpty else { return nil }
        let sorted = recentLatencies.sorted()
        return sorted[sorted.count / 2]
    }

    private mutating func record(_ latency: UInt64) {
        lastLatencyNanoseconds = latency
        recentLatencies.append(latency)
        if recentLatencies.count > Self.window { recentLatencies.removeFirst(recentLatencies.count - Self.window) }
    }
}
