/// How a picture (an image or a video frame) fills a screen whose aspect ratio differs from its own.
public enum MediaFit: String, Codable, Sendable, CaseIterable {
    /// All of the picture, as large as fits, letterboxed in the theme's background. The default: signage content
    /// loses nothing.
    case contain
    /// The whole screen, the picture's overflow cropped evenly on both sides.
    case cover
    /// The whole screen, the picture distorted to its aspect ratio.
    case stretch
    /// One picture pixel per screen pixel, centred: cropped when larger, letterboxed when smaller.
    case center
}
