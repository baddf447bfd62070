import Outputs
import Screens

/// A `media.show` accepted by the ``ProductController`` but not answered yet: the file must be read first, and that
/// happens off the display thread. The display thread's media owner reads it and hands the result back to
/// ``ProductController/settle(_:with:)``, which answers the request then. Until then the screen shows what it
/// showed: a file that cannot be shown changes nothing.
public struct MediaRequest: Equatable, Sendable {
    public var screen: String
    public var item: MediaItem
    /// The client's request id and its producer, so that a retry after the answer gets the same answer.
    public var requestID: String?
    public var producer: Int

    public init(screen: String, item: MediaItem, requestID: String? = nil, producer: Int = 0) {
        self.screen = screen
        self.item = item
        self.requestID = requestID
        self.producer = producer
    }
}

/// What reading a media file found: enough to show it, or why it cannot be shown.
public enum MediaReading: Equatable, Sendable {
    /// The file decodes: its kind, its size in pixels and, for a video, the decoder that plays it.
    case readable(kind: MediaKind, width: Int, height: Int, decoder: String?)
    /// It does not, for this reason (one sentence, the path included).
    case failed(String)
}
