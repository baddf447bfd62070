/// A rasterised block of text: one byte of coverage per pixel, ready to upload as a single-channel
/// (`GL_ALPHA` / `GL_LUMINANCE`) texture and tinted by the shader.
///
/// Colour glyphs (emoji bitmap strikes) arrive here as coverage too, alpha less luminance: they draw in the text
/// colour with dark strokes solid and light fills faint, not in their own colours.
public struct TextBitmap: Sendable, Equatable {
    /// Width in pixels; 0 for empty text.
    public let width: Int
    /// Height in pixels; 0 for empty text.
    public let height: Int
    /// Distance in pixels from the top row to the first line's baseline, for aligning text with other text.
    public let baseline: Int
    /// 8-bit coverage, row-major, stride == `width`, top row first; `width * height` bytes.
    public let pixels: [UInt8]

    /// The bitmap of empty text: 0×0 so that callers can skip creating a texture for it.
    public static let empty = TextBitmap(width: 0, height: 0, baseline: 0, pixels: [])

    public init(width: Int, height: Int, baseline: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height, "pixels must be width × height")
        self.width = width
        self.height = height
        self.baseline = baseline
        self.pixels = pixels
    }

    /// Coverage at column `x`, row `y` (top row is 0).
    public subscript(x: Int, y: Int) -> UInt8 {
        pixels[y * width + x]
    }
}
