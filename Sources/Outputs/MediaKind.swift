/// What a media file holds, as its first bytes tell (never its name): a still or animated image, or a video.
public enum MediaKind: String, Codable, Sendable, CaseIterable {
    case image
    case video
}

extension MediaKind {
    /// The kind a file's name suggests (a video's usual extensions, else an image), for naming only: what a file is,
    /// its first bytes decide when it is read.
    public init(guessingFromName name: String) {
        let suffix = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        self = Self.videoExtensions.contains(suffix) ? .video : .image
    }

    /// The kind whose usual extensions include the one `name` ends in; nil for a name with none of them (what tells
    /// a playlist's picture or video by URL from a web page).
    public init?(recognisingExtensionOf name: String) {
        guard let dot = name.lastIndex(of: "."), !name[dot...].contains("/") else { return nil }
        let suffix = name[name.index(after: dot)...].lowercased()
        if Self.videoExtensions.contains(suffix) {
            self = .video
        } else if Self.imageExtensions.contains(suffix) {
            self = .image
        } else {
            return nil
        }
    }

    /// A video's usual file extensions (lower case).
    public static let videoExtensions: Set<String> = [
        "mp4", "m4v", "mov", "webm", "mkv", "ogv", "avi", "ts", "mpg", "mpeg",
    ]
    /// The extensions of the images GdkPixbuf's loaders read here (lower case).
    public static let imageExtensions: Set<String> = [
        "png", "jpg", "jpeg", "gif", "webp", "svg", "bmp", "tif", "tiff", "ico",
    ]
}
