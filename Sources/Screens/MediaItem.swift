import Outputs

/// An image or a video shown on a screen: the file, and how it fills the screen. Its kind (image or video) is the
/// screen's content mode, decided when the file was first read.
public struct MediaItem: Codable, Equatable, Hashable, Sendable {
    /// The file, as the request or the config named it.
    public var path: String
    public var fit: MediaFit
    public var rotation: MediaRotation
    /// A video starts again at its end (an animated image always repeats as its file says).
    public var loop: Bool
    /// When the wall clock says the file shows and the video began (seconds since 1970): a playlist's video item, or a
    /// `media.show` given `at`, plays where the clock says, `now − clockStart` in (wrapped around its length when it
    /// loops), not from its first frame, and nothing of it shows before then. Screens given one start switch together
    /// and play in step; a kiosk restarted meanwhile comes back at the clock's point. Nil for a file shown by
    /// `media.show` without `at` or by a rule, which starts at its beginning as soon as it is read. Part of the item's
    /// identity: the same file from another start is another timeline.
    public var clockStart: Double?
    /// A video's sound plays on the machine's audio output (one screen at a time: ``ScreenModel/soundScreen``); muted
    /// otherwise. Part of the item's identity: a pipeline with sound is another pipeline.
    public var audio: Bool

    public init(
        path: String, fit: MediaFit = .contain, rotation: MediaRotation = .none, loop: Bool = false,
        clockStart: Double? = nil, audio: Bool = false
    ) {
        self.path = path
        self.fit = fit
        self.rotation = rotation
        self.loop = loop
        self.clockStart = clockStart
        self.audio = audio
    }

    private enum CodingKeys: String, CodingKey {
        case path, fit, rotation, loop, clockStart, audio
    }

    /// Reads a saved item; one saved before sound existed has none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        path = try container.decode(String.self, forKey: .path)
        fit = try container.decode(MediaFit.self, forKey: .fit)
        rotation = try container.decode(MediaRotation.self, forKey: .rotation)
        loop = try container.decode(Bool.self, forKey: .loop)
        clockStart = try container.decodeIfPresent(Double.self, forKey: .clockStart)
        audio = try container.decodeIfPresent(Bool.self, forKey: .audio) ?? false
    }
}

/// What a screen shows of a media file: the item and the kind of file it is.
public struct ShownMedia: Codable, Equatable, Hashable, Sendable {
    public var item: MediaItem
    public var kind: MediaKind

    public init(item: MediaItem, kind: MediaKind) {
        self.item = item
        self.kind = kind
    }
}
