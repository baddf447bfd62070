/// Proof that a playlist item was on a screen: one item's turn on one screen, from the switch that began it to the
/// one that ended it, with the frames the compositor showed meanwhile. Times are seconds since 1970 (wall clock).
public struct PlayRecord: Codable, Equatable, Sendable {
    public var screen: String
    /// The item's file or URL, and its place in its playlist (from 0).
    public var source: String
    public var index: Int
    /// When its turn began, as the wall clock and the playlist say (the same on every screen and kiosk that plays it).
    public var start: Double
    /// When it left the screen: its turn ended, the screen went off or away, or Multiscreen stopped.
    public var end: Double
    /// When the compositor first and last showed a frame of the screen with it (presented, or frame done where the
    /// compositor says nothing more); nil when no frame of it was shown, which is what a proof of play must say.
    public var shownAt: Double?
    public var lastShownAt: Double?
    /// Frames of the screen the compositor showed during its turn, with a video's own frames.
    public var frames: Int

    public init(
        screen: String, source: String, index: Int, start: Double, end: Double, shownAt: Double? = nil,
        lastShownAt: Double? = nil, frames: Int = 0
    ) {
        self.screen = screen
        self.source = source
        self.index = index
        self.start = start
        self.end = end
        self.shownAt = shownAt
        self.lastShownAt = lastShownAt
        self.frames = frames
    }
}
