/// Where in a video its pipeline starts when the wall clock says it should already be `offset` seconds in (a
/// playlist's item that began before the pipeline could play: a kiosk restarted mid-item, a screen plugged in, a file
/// read late). Pure arithmetic, apart from GStreamer, so that every case is checked without a pipeline.
public enum VideoStart: Equatable, Sendable {
    /// Play from the beginning, as a video shown without a clock does.
    case fromBeginning
    /// Seek to this many seconds into the video, then play.
    case at(seconds: Double)
    /// The clock says to start past the beginning, but the video's length is unknown, so the point cannot be
    /// placed (a looping video's offset cannot be wrapped): it plays from the beginning.
    case unknownDuration

    /// Closer to the beginning than this, a seek is not worth its cost: the decoder would be restarted to skip a few
    /// frames nobody can tell from the start.
    public static let smallestSeek = 0.25
    /// How far before its end a video that does not loop is started when the clock says it is over: its last frame
    /// (a video that ended stays on it), not a seek past the end that would bring no frame at all.
    public static let lastFrameMargin = 0.1

    /// - Parameters:
    ///   - offset: how far into the video the clock says it is, in seconds (negative: not yet begun).
    ///   - duration: the video's length in seconds, if known.
    ///   - loops: the video plays again at its end, so the clock's offset wraps around its length.
    public init(offset: Double, duration: Double?, loops: Bool) {
        guard offset.isFinite, offset >= Self.smallestSeek else {
            self = .fromBeginning
            return
        }
        guard let duration, duration.isFinite, duration > 0 else {
            self = .unknownDuration
            return
        }
        let position =
            loops ? offset.truncatingRemainder(dividingBy: duration) : min(offset, duration - Self.lastFrameMargin)
        self = position >= Self.smallestSeek ? .at(seconds: position) : .fromBeginning
    }
}
