/// What a media file holds, as its first bytes tell (never its name): a still or animated image, or a video.
public enum MediaKind: String, Codable, Sendable, CaseIterable {
    case image
    case video
}

extension MediaKind {
    /// The kind a file's name suggests (a video's usual extensions, else an image), for naming only: what a file is,
    /// its first bytes decide when it is read.
    public init(guessingFromName name: String) {
        let videos: Set<String> = ["mp4", "m4v", "mov", "webm", "mkv", "ogv", "avi", "ts", "mpg", "mpeg"]
        let suffix = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        self = videos.contains(suffix) ? .video : .image
    }
}
