/// What a media file holds, as its first bytes tell (never its name): a still or animated image, or a video.
public enum MediaKind: String, Codable, Sendable, CaseIterable {
    case image
    case video
}
