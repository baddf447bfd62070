/// When a screen with something new to show draws it.
public enum FramePacing: String, CaseIterable, Sendable {
    /// Draw when the previous frame's `wl_surface.frame` callback has come (foot's policy, the default): the
    /// compositor paces us, bursts coalesce, but a change that arrives while a callback is outstanding waits for it.
    case frame
    /// Draw as soon as something changed, callback or not (`eglSwapInterval(0)`, so a swap never blocks).
    case immediate
    /// Draw as late as still makes the earliest presentation that can be made (``DeadlinePredictor``): changes
    /// arriving meanwhile join the same frame, and none waits for a frame callback.
    case deadline
}

/// Predicts, from one surface's `presented` feedback, when to start drawing so that the frame is committed just in
/// time for the earliest presentation it can still make.
///
/// The presentation grid is the last presented time plus multiples of the refresh period. How long before a
/// presentation a commit must be in is learnt, not assumed: the shortest commit → presented seen lately (weston
/// 10 headless: ~20–25 ms; a real output: a few ms). Drawing takes the longest draw seen lately, plus a margin.
/// Without a presented time and a refresh period (sway 1.7 headless, no `wp_presentation`) it says "now", and
/// so it does while presentations do not fall on the grid (each within ``gridTolerance`` of a multiple of the
/// refresh period after the previous one): weston 10 headless reports a 16.7 ms refresh but presents about 25 ms
/// after whatever commit, so waiting there only adds to the latency.
public struct DeadlinePredictor: Equatable, Sendable {
    /// Added to the learnt lead and draw time.
    public static let margin: UInt64 = 1_000_000
    /// How far a presentation may be off the refresh grid for the grid to be trusted.
    public static let gridTolerance: UInt64 = 1_000_000
    static let remembered = 16

    private(set) var lastPresented: UInt64?
    private(set) var refresh: UInt64 = 0
    private var leads: [UInt64] = []
    private var draws: [UInt64] = []
    /// How far each recent presentation was from the grid of the one before it.
    private var gridErrors: [UInt64] = []

    public init() {}

    /// A frame committed at `committedAt` was presented at `presentedAt` (both `CLOCK_MONOTONIC`).
    public mutating func presented(at presentedAt: UInt64, committedAt: UInt64, refreshNanoseconds: UInt64) {
        if let last = lastPresented, refreshNanoseconds > 0, presentedAt > last {
            let phase = (presentedAt - last) % refreshNanoseconds
            Self.remember(min(phase, refreshNanoseconds - phase), in: &gridErrors)
        }
        lastPresented = presentedAt
        refresh = refreshNanoseconds
        if presentedAt > committedAt { Self.remember(presentedAt - committedAt, in: &leads) }
    }

    /// Drawing and committing a frame took `nanoseconds`.
    public mutating func drew(_ nanoseconds: UInt64) { Self.remember(nanoseconds, in: &draws) }

    /// When to start drawing content that changed at `now`: at or after `now`.
    public func drawStart(now: UInt64) -> UInt64 {
        guard let lastPresented, refresh > 0, let lead = leads.min(), followsTheGrid else { return now }
        let needed = lead + (draws.max() ?? 0) + Self.margin
        let earliest = now + needed
        // The first presentation on the grid at or after `earliest`.
        let steps = earliest <= lastPresented ? 0 : (earliest - lastPresented + refresh - 1) / refresh
        let target = lastPresented + steps * refresh
        return max(target - needed, now)
    }

    /// At least 3 presentations seen, each on the refresh grid of the previous one.
    public var followsTheGrid: Bool { gridErrors.count >= 3 && gridErrors.allSatisfy { $0 <= Self.gridTolerance } }

    private static func remember(_ value: UInt64, in values: inout [UInt64]) {
        values.append(value)
        if values.count > remembered { values.removeFirst(values.count - remembered) }
    }
}
