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

    public init(
        path: String, fit: MediaFit = .contain, rotation: MediaRotation = .none, loop: Bool = false,
        clockStart: Double? = nil
    ) {
        self.path = path
        self.fit = fit
        self.rotation = rotation
        self.loop = loop
        self.clockStart = clockStart
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
