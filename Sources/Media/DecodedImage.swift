import SystemCalls

/// A still or animated image decoded once, EXIF orientation applied, in memory the compositor can share: every
/// screen showing it wraps the same ``SharedPixels`` in its own `wl_buffer`.
public final class DecodedImage: @unchecked Sendable {
    /// The size of every frame, after orientation and scaling.
    public let width: Int32
    public let height: Int32
    /// The file's own size, after orientation (what a fit mode's aspect ratio is computed from).
    public let sourceWidth: Int
    public let sourceHeight: Int
    /// One for a still image; every frame of an animated GIF or WebP, fully composited.
    public let frames: [SharedPixels]
    /// Seconds each frame shows, as many as ``frames``; `[0]` for a still image.
    public let delays: [Double]
    /// An animation that repeats forever (a GIF or WebP loop count of 0); false for one that plays once or a
    /// given number of times (it then stops on its last frame) and for a still image.
    public let loops: Bool

    init(sourceWidth: Int, sourceHeight: Int, frames: [SharedPixels], delays: [Double], loops: Bool) {
        precondition(!frames.isEmpty && frames.count == delays.count)
        width = frames[0].width
        height = frames[0].height
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.frames = frames
        self.delays = delays
        self.loops = loops
    }

    /// Whether there is more than one frame to show.
    public var isAnimated: Bool { frames.count > 1 }
}
