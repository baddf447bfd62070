/// Where in a video its pipeline starts when the wall clock says it should already be `offset` seconds in (a
/// playlist's item that began before the pipeline could play: a kiosk restarted mid-item, a screen plugged in, a file
/// read late), or should start `-offset` seconds from now (a video read ahead of its turn). Pure arithmetic, apart
/// from GStreamer, so that every case is checked without a pipeline.
public enum VideoStart: Equatable, Sendable {
    /// Play from the beginning, whose time on the clock was `late` seconds ago (negative: is still to come). Its first
    /// frame is due then: frames the clock has passed go out at once, a beginning still to come is waited for.
    case fromBeginning(late: Double)
    /// Seek to this many seconds into the video, then play: that point is due now.
    case at(seconds: Double)
    /// The clock says to start past the beginning, but the video's length is unknown, so the point cannot be
    /// placed (a looping video's offset cannot be wrapped): it plays from the beginning, now.
    case unknownDuration

    /// Closer to the beginning than this, a seek is not worth its cost: the decoder would be restarted to skip a few
    /// frames, which go out at once instead.
    public static let smallestSeek = 0.25
    /// How far before its end a video that does not loop is started when the clock says it is over: its last frame
    /// (a video that ended stays on it), not a seek past the end that would bring no frame at all.
    public static let lastFrameMargin = 0.1

    /// - Parameters:
    ///   - offset: how far into the video the clock says it is, in seconds (negative: not yet begun).
    ///   - duration: the video's length in seconds, if known.
    ///   - loops: the video plays again at its end, so the clock's offset wraps around its length.
    public init(offset: Double, duration: Double?, loops: Bool) {
        guard offset.isFinite else {
            self = .fromBeginning(late: 0)
            return
        }
        guard offset >= Self.smallestSeek else {
            self = .fromBeginning(late: offset)
            return
        }
        guard let duration, duration.isFinite, duration > 0 else {
            self = .unknownDuration
            return
        }
        let position =
            loops ? offset.truncatingRemainder(dividingBy: duration) : min(offset, duration - Self.lastFrameMargin)
        self = position >= Self.smallestSeek ? .at(seconds: position) : .fromBeginning(late: max(position, 0))
    }

    /// How long ago (seconds; negative: how long from now) the point the pipeline starts at is due on the clock, or
    /// nil for at once.
    public var late: Double? {
        switch self {
        case .fromBeginning(let late): late
        case .at: 0
        case .unknownDuration: nil
        }
    }
}
