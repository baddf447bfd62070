/// A rasterised block of text in its own colours: premultiplied ARGB, one `UInt32` per pixel in cairo's
/// `CAIRO_FORMAT_ARGB32` layout (native-endian: bytes B, G, R, A on little-endian machines).
///
/// Colour glyphs (emoji) keep their colours; other glyphs are drawn in the ``TextStyle/color`` they were asked for.
public struct TextBitmap: Sendable, Equatable {
    /// Width in pixels; 0 for empty text.
    public let width: Int
    /// Height in pixels; 0 for empty text.
    public let height: Int
    /// Where the bitmap's left edge goes relative to the box's left edge: nonzero when a line is aligned to the
    /// right or centre of a box of width `maxWidth` (right-to-left paragraphs start at the right).
    public let originX: Int
    /// Distance in pixels from the top row to the first line's baseline, for aligning text with other text.
    public let baseline: Int
    /// Lines laid out, after wrapping and the height limit.
    public let lineCount: Int
    /// Whether text was cut to fit (Pango put an ellipsis at the end, or the input was longer than a box of this
    /// size could ever show and was cut before layout).
    public let isEllipsized: Bool
    /// Premultiplied ARGB, row-major, stride == `width`, top row first.
    public let pixels: [UInt32]

    /// The bitmap of empty text: 0×0 so that callers can skip creating a texture for it.
    public static let empty = TextBitmap(
        width: 0, height: 0, originX: 0, baseline: 0, lineCount: 0, isEllipsized: false, pixels: [])

    public init(
        width: Int, height: Int, originX: Int, baseline: Int, lineCount: Int, isEllipsized: Bool, pixels: [UInt32]
    ) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height, "pixels must be width × height")
        self.width = width
        self.height = height
        self.originX = originX
        self.baseline = baseline
        self.lineCount = lineCount
        self.isEllipsized = isEllipsized
        self.pixels = pixels
    }

    /// The pixel at column `x`, row `y` (top row is 0) as premultiplied (red, green, blue, alpha).
    public subscript(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
        let value = pixels[y * width + x]
        return (
            UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 24)
        )
    }

    /// Bytes the pixels take (and the texture made from them).
    public var byteCount: Int { width * height * 4 }
}
