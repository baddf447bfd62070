import FrameTiming
import Messaging
import Outputs

/// What `status` reports that the product does not own: frame statistics per screen, the bus counters and every
/// message source's counters. Gathered by the display thread only when a `status` request asks for it.
public struct Vitals: Sendable {
    /// Per output (registry name): the frame statistics of its screen, absent while it has no window.
    public var frames: [UInt32: FrameStatistics]
    /// Per output (registry name): message → shown latency of its screen.
    public var latency: [UInt32: ScreenLatency]
    /// `CLOCK_MONOTONIC` ns when gathered: the end of the "last minute" window.
    public var now: UInt64
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
    /// How screens pace their frames (`run --pacing`) and whether the flash patch is drawn: what a latency run
    /// against this Multiscreen measures.
    public var pacing = "frame"
    public var flash = false
    /// Each message source's notes (``MessageSource/notes``), by the source's name, beside its counters.
    public var sourceNotes: [String: [String: String]] = [:]
    /// Per output: how its frames reach its surface (`egl`, `egl-texture-copy`, `shared-buffer`,
    /// `shared-buffer-mirror`).
    public var framePaths: [UInt32: String] = [:]
    /// How mirrors get the controller's picture (`shared-buffer` or `texture-copy`), why, and the shared frames'
    /// counters (frames, held, buffers, bytes, …) when there are any.
    public var mirrorPath = "texture-copy"
    public var mirrorPathReason: String?
    public var sharedFrames: [String: Int] = [:]
    /// Per output (registry name) showing a web page: the view's state, frames and memory.
    public var pages: [UInt32: [String: JSONValue]] = [:]
    /// The web engine: whether it runs (it starts with the first page), its views, the pages it could not show.
    public var webEngine: [String: JSONValue] = [:]
    /// Per output registry name: what its media owner says of the image or video it shows (state, frames, decoder,
    /// the last error).
    public var media: [UInt32: [String: JSONValue]] = [:]
    /// The playlist assets by URL: counts (wanted, cached, downloading, queued), the failed ones with why, the cache's
    /// bytes and cap.
    public var assets: [String: JSONValue]?
    /// Per output turned off by its schedule: how (`output-power`: the compositor turned the output off;
    /// `black-screen`: it would not, so the screen is black and lets the outputs sleep; `switching`: not known yet).
    public var powerMethods: [UInt32: String] = [:]
    /// Seconds since 1970 when the status was taken (what a playlist's position is computed at).
    public var wallClock: Double = 0
    /// The process's memory as the allocator and the text cache see it (bytes and counts, by name): what tells a
    /// growing RSS made of live objects from one made of freed but unreturned heap.
    public var memory: [String: Int] = [:]

    public init(
        frames: [UInt32: FrameStatistics] = [:], latency: [UInt32: ScreenLatency] = [:], now: UInt64 = 0,
        bus: RingStatistics = RingStatistics(), wakeups: Int = 0,
        applied: Int = 0, sources: [String: [String: Int]] = [:]
    ) {
        self.frames = frames
        self.latency = latency
        self.now = now
        self.bus = bus
        self.wakeups = wakeups
        self.applied = applied
        self.sources = sources
    }
}
