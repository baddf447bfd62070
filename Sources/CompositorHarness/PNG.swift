import CPNG

/// PNG reading and writing for screenshots, through libpng's simplified API (`png_image`).
///
/// Reading accepts anything libpng does (any bit depth, palette, greyscale, alpha, interlacing): it is converted to
/// RGB8, and an alpha channel is composited onto black (an output's contents are opaque, so this changes nothing for
/// screenshots). Writing produces an RGB8 PNG, zlib-compressed by libpng.
enum PNG {
    /// The eight bytes every PNG file starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

    /// Decodes a PNG file's bytes to RGB8.
    /// - Throws: ``HarnessError`` with libpng's message if the data is not a PNG libpng can decode.
    static func decode(_ data: [UInt8]) throws -> Screenshot {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        let begun = data.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw HarnessError("cannot read PNG header: \(message(of: image))") }
        image.format = UInt32(PNG_FORMAT_RGB)
        let width = Int(image.width)
        let height = Int(image.height)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let finished = pixels.withUnsafeMutableBytes {
            png_image_finish_read(&image, nil, $0.baseAddress, 0, nil)
        }
        guard finished != 0 else {
            throw HarnessError("cannot decode PNG of \(width)×\(height): \(message(of: image))")
        }
        return Screenshot(width: width, height: height, pixels: pixels)
    }

    /// Encodes RGB8 pixels as a PNG file's bytes.
    /// - Throws: ``HarnessError`` with libpng's message (for example for an empty image, which PNG cannot hold).
    static func encode(_ screenshot: Screenshot) throws -> [UInt8] {
        var image = writeImage(for: screenshot)
        defer { png_image_free(&image) }
        var size: png_alloc_size_t = 0
        // With no memory, libpng compresses once to report the size the file needs.
        let measured = screenshot.pixels.withUnsafeBytes {
            png_image_write_to_memory(&image, nil, &size, 0, $0.baseAddress, 0, nil)
        }
        guard measured != 0 else {
            throw HarnessError(
                "cannot encode \(screenshot.width)×\(screenshot.height) image as PNG: \(message(of: image))")
        }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let written = bytes.withUnsafeMutableBytes { memory in
            screenshot.pixels.withUnsafeBytes {
                png_image_write_to_memory(&image, memory.baseAddress, &size, 0, $0.baseAddress, 0, nil)
            }
        }
        guard written != 0 else {
            throw HarnessError(
                "cannot encode \(screenshot.width)×\(screenshot.height) image as PNG: \(message(of: image))")
        }
        return Array(bytes.prefix(Int(size)))
    }

    /// Writes RGB8 pixels as a PNG file at `path`.
    /// - Throws: ``HarnessError`` with libpng's message (which names the failing system call) if it cannot.
    static func write(_ screenshot: Screenshot, to path: String) throws {
        var image = writeImage(for: screenshot)
        defer { png_image_free(&image) }
        let written = screenshot.pixels.withUnsafeBytes {
            png_image_write_to_file(&image, path, 0, $0.baseAddress, 0, nil)
        }
        guard written != 0 else { throw HarnessError("cannot write PNG \(path): \(message(of: image))") }
    }

    /// A `png_image` describing `screenshot`'s pixels, ready for the simplified write API.
    private static func writeImage(for screenshot: Screenshot) -> png_image {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(clamping: screenshot.width)
        image.height = UInt32(clamping: screenshot.height)
        image.format = UInt32(PNG_FORMAT_RGB)
        return image
    }

    /// libpng's error (or warning) message: a NUL-terminated string in a fixed 64-byte field.
    private static func message(of image: png_image) -> String {
        let text = withUnsafeBytes(of: image.message) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "libpng gave no message (warning_or_error \(image.warning_or_error))" : text
    }
}
