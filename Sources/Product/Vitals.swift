import Messaging
import Outputs

/// What `status` reports that the product does not own: frame statistics per screen, the bus counters and every
/// message source's counters. Gathered by the display thread only when a `status` request asks for it.
public struct Vitals: Sendable {
    /// Per output (registry name): the frame statistics of its screen, absent while it has no window.
    public var frames: [UInt32: FrameStatistics]
    /// Per output: whether the compositor shows its frames (`ok`, `recovering`, `failed`) and how long ago it last
    /// showed one.
    public var health: [UInt32: (state: String, lastShownSecondsAgo: Double?)] = [:]
    public var bus: RingStatistics
    /// eventfd writes by producers so far.
    public var wakeups: Int
    /// Messages the display thread has applied.
    public var applied: Int
    /// Each message source's counters, by the source's name ("control", …).
    public var sources: [String: [String: Int]]
    /// Each message source's notes (``MessageSource/notes``), by the source's name, beside its counters.
    public var sourceNotes: [String: [String: String]] = [:]

    public init(
        frames: [UInt32: FrameStatistics] = [:], bus: RingStatistics = RingStatistics(), wakeups: Int = 0,
        applied: Int = 0, sources: [String: [String: Int]] = [:]
    ) {
        self.frames = frames
        self.bus = bus
        self.wakeups = wakeups
        self.applied = applied
        self.sources = sources
    }
}
