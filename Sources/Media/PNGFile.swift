import CPNG
import Foundation

/// Writes pictures as PNG with libpng's simplified API, to a file or to memory: what `screen.capture` hands its
/// caller.
public enum PNGFile {
    /// Writes `pixels` (XRGB8888 as `wl_shm` lays it out on a little-endian machine: B, G, R, unused; `width` × 4 bytes
    /// a row, top row first) as an RGB PNG at `path`. The file appears whole or not at all: it is written beside
    /// `path` and renamed over it.
    /// - Returns: nil when written, else why not (one sentence).
    public static func write(xrgb pixels: [UInt8], width: Int, height: Int, to path: String) -> String? {
        guard width > 0, height > 0, pixels.count >= width * height * 4 else { return "an empty picture" }
        var image = header(width: width, height: height)
        let packed = bgr(pixels, count: width * height)
        let temporary = path + ".partial-\(getpid())"
        let written = packed.withUnsafeBytes {
            png_image_write_to_file(&image, temporary, 0, $0.baseAddress, Int32(width * 3), nil)
        }
        defer { png_image_free(&image) }
        guard written != 0 else {
            unlink(temporary)
            return "cannot write \(path): \(reason(image))"
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            return "cannot write \(path): \(reason)"
        }
        return nil
    }

    /// The PNG of `pixels` (as ``write(xrgb:width:height:to:)`` takes them), at most `limit` bytes.
    /// - Returns: the PNG's bytes, or why there are none (one sentence).
    public static func encode(xrgb pixels: [UInt8], width: Int, height: Int, limit: Int) -> Result<[UInt8], Failure> {
        guard width > 0, height > 0, pixels.count >= width * height * 4 else { return .failure("an empty picture") }
        var image = header(width: width, height: height)
        defer { png_image_free(&image) }
        let packed = bgr(pixels, count: width * height)
        // Encoded once, into room for the worst case (libpng's own bound: the rows with their filter bytes through
        // zlib at its worst, and the chunks' headers), or for the limit when that is less. Too little room fails with
        // the size it would have needed: then the PNG is over the limit.
        let rows = (width * 3 + 1) * height
        let deflated = rows + (rows + 7) / 8 + (rows + 63) / 64 + 11
        let room = min(8 + 25 + 12 + deflated + 12 * ((deflated + 8191) / 8192), limit)
        var bytes = [UInt8](repeating: 0, count: room)
        var size = room
        let encoded = bytes.withUnsafeMutableBytes { out in
            packed.withUnsafeBytes {
                png_image_write_to_memory(&image, out.baseAddress, &size, 0, $0.baseAddress, Int32(width * 3), nil)
            }
        }
        guard encoded != 0 else {
            if size > room {
                return .failure(
                    Failure("its PNG is \(size) bytes, more than the \(limit) a reply carries: give a path"))
            }
            return .failure(Failure("cannot encode the PNG: \(reason(image))"))
        }
        return .success(Array(bytes.prefix(size)))
    }

    /// Why a PNG could not be made, in one sentence.
    public struct Failure: Error, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
        public init(stringLiteral value: String) { description = value }
    }

    private static func header(width: Int, height: Int) -> png_image {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        // The fourth byte of each pixel is not alpha (it is undefined in XRGB): packed to BGR, written as RGB.
        image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_BGR)
        // Speed over size: a capture is asked for now, and zlib's default level took most of its time (1080p).
        image.flags = UInt32(PNG_IMAGE_FLAG_FAST)
        return image
    }

    private static func bgr(_ pixels: [UInt8], count: Int) -> [UInt8] {
        var packed = [UInt8](repeating: 0, count: count * 3)
        packed.withUnsafeMutableBufferPointer { out in
            pixels.withUnsafeBufferPointer { source in
                for pixel in 0..<count {
                    out[pixel * 3] = source[pixel * 4]
                    out[pixel * 3 + 1] = source[pixel * 4 + 1]
                    out[pixel * 3 + 2] = source[pixel * 4 + 2]
                }
            }
        }
        return packed
    }

    private static func reason(_ image: png_image) -> String {
        let message = withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return message.isEmpty ? String(cString: strerror(errno)) : message
    }
}
