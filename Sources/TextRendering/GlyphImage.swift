import CFreeType

/// A rendered glyph as 8-bit coverage, placed relative to the pen position on the baseline.
struct GlyphImage {
    let width: Int
    let height: Int
    /// Horizontal distance from the pen to the leftmost column.
    let left: Int
    /// Vertical distance from the baseline up to the top row (FreeType's `bitmap_top`).
    let top: Int
    let pixels: [UInt8]

    static let blank = GlyphImage(width: 0, height: 0, left: 0, top: 0, pixels: [])

    /// How the source bitmap was turned into coverage, for ``TextRasterizer/Statistics``.
    enum Conversion {
        case coverage
        case colorToCoverage
        case unsupported
    }

    /// Converts the glyph slot's bitmap into coverage: grey levels as they are, 1-bit as 0/255, and colour (BGRA,
    /// premultiplied) with ``coverage(blue:green:red:alpha:)``. Other pixel modes (LCD, 2/4-bit grey) give a blank
    /// glyph.
    static func from(slot: FT_GlyphSlot) -> (GlyphImage, Conversion) {
        let bitmap = slot.pointee.bitmap
        let width = Int(bitmap.width)
        let height = Int(bitmap.rows)
        let left = Int(slot.pointee.bitmap_left)
        let top = Int(slot.pointee.bitmap_top)
        guard width > 0, height > 0, let buffer = bitmap.buffer else {
            return (GlyphImage(width: 0, height: 0, left: left, top: top, pixels: []), .coverage)
        }
        let pitch = Int(bitmap.pitch)
        // A negative pitch means rows are stored bottom-up from the start of the buffer.
        func row(_ y: Int) -> UnsafeMutablePointer<UInt8> {
            pitch >= 0 ? buffer + y * pitch : buffer + (height - 1 - y) * -pitch
        }
        var pixels = [UInt8](repeating: 0, count: width * height)
        let conversion: Conversion
        switch bitmap.pixel_mode {
        case UInt8(FT_PIXEL_MODE_GRAY.rawValue):
            let levels = max(Int(bitmap.num_grays) - 1, 1)
            for y in 0..<height {
                let source = row(y)
                for x in 0..<width {
                    let value = Int(source[x])
                    pixels[y * width + x] = levels == 255 ? UInt8(value) : UInt8(min(value * 255 / levels, 255))
                }
            }
            conversion = .coverage
        case UInt8(FT_PIXEL_MODE_MONO.rawValue):
            for y in 0..<height {
                let source = row(y)
                for x in 0..<width where source[x >> 3] & (0x80 >> UInt8(x & 7)) != 0 {
                    pixels[y * width + x] = 255
                }
            }
            conversion = .coverage
        case UInt8(FT_PIXEL_MODE_BGRA.rawValue):
            for y in 0..<height {
                let source = row(y)
                for x in 0..<width {
                    pixels[y * width + x] = coverage(
                        blue: source[x * 4], green: source[x * 4 + 1],
                        red: source[x * 4 + 2], alpha: source[x * 4 + 3])
                }
            }
            conversion = .colorToCoverage
        default:
            return (GlyphImage(width: 0, height: 0, left: left, top: top, pixels: []), .unsupported)
        }
        return (GlyphImage(width: width, height: height, left: left, top: top, pixels: pixels), conversion)
    }

    /// Coverage of one premultiplied sRGB pixel: its alpha less its luminance (FreeType's own BGRA-to-grey rule),
    /// so dark strokes stay solid and light fills turn faint. Alpha alone would reduce an emoji to a blob; this
    /// keeps eyes and outlines visible once the texture is tinted with the text colour.
    static func coverage(blue: UInt8, green: UInt8, red: UInt8, alpha: UInt8) -> UInt8 {
        guard alpha > 0 else { return 0 }
        let b = UInt32(blue)
        let g = UInt32(green)
        let r = UInt32(red)
        // Rec. 709 weights × 65536, squaring the channels as a cheap approximation of linearising sRGB.
        let luminance = (4732 * b * b + 46871 * g * g + 13933 * r * r) >> 16
        return UInt8(UInt32(alpha) - min(luminance / UInt32(alpha), UInt32(alpha)))
    }

    /// Resamples by `factor` (a fixed-size strike drawn at another size) with a box filter: each output pixel
    /// averages the source pixels it covers, which keeps downscaled emoji smooth.
    func scaled(by factor: Double) -> GlyphImage {
        guard factor != 1, width > 0, height > 0 else { return self }
        let newWidth = max(Int((Double(width) * factor).rounded()), 1)
        let newHeight = max(Int((Double(height) * factor).rounded()), 1)
        let xRatio = Double(width) / Double(newWidth)
        let yRatio = Double(height) / Double(newHeight)
        var output = [UInt8](repeating: 0, count: newWidth * newHeight)
        for y in 0..<newHeight {
            let y0 = min(Int(Double(y) * yRatio), height - 1)
            let y1 = max(min(Int((Double(y + 1) * yRatio).rounded(.up)), height), y0 + 1)
            for x in 0..<newWidth {
                let x0 = min(Int(Double(x) * xRatio), width - 1)
                let x1 = max(min(Int((Double(x + 1) * xRatio).rounded(.up)), width), x0 + 1)
                var sum = 0
                for sy in y0..<y1 {
                    for sx in x0..<x1 { sum += Int(pixels[sy * width + sx]) }
                }
                output[y * newWidth + x] = UInt8(sum / ((y1 - y0) * (x1 - x0)))
            }
        }
        return GlyphImage(
            width: newWidth, height: newHeight, left: Int((Double(left) * factor).rounded()),
            top: Int((Double(top) * factor).rounded()), pixels: output)
    }
}
