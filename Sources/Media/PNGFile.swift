import CPNG
import Foundation

/// Writes pictures as PNG files with libpng's simplified API: what `screen.capture` hands its caller.
public enum PNGFile {
    /// Writes `pixels` (XRGB8888 as `wl_shm` lays it out on a little-endian machine: B, G, R, unused; `width` × 4 bytes
    /// a row, top row first) as an RGB PNG at `path`. The file appears whole or not at all: it is written beside
    /// `path` and renamed over it.
    /// - Returns: nil when written, else why not (one sentence).
    public static func write(xrgb pixels: [UInt8], width: Int, height: Int, to path: String) -> String? {
        guard width > 0, height > 0, pixels.count >= width * height * 4 else { return "an empty picture" }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        // The fourth byte of each pixel is not alpha (it is undefined in XRGB): packed to BGR, written as RGB.
        image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_BGR)
        // Speed over size: a capture is asked for now, and zlib's default level took most of its time (1080p).
        image.flags = UInt32(PNG_IMAGE_FLAG_FAST)
        var packed = [UInt8](repeating: 0, count: width * height * 3)
        packed.withUnsafeMutableBufferPointer { out in
            pixels.withUnsafeBufferPointer { source in
                for pixel in 0..<(width * height) {
                    out[pixel * 3] = source[pixel * 4]
                    out[pixel * 3 + 1] = source[pixel * 4 + 1]
                    out[pixel * 3 + 2] = source[pixel * 4 + 2]
                }
            }
        }
        let temporary = path + ".partial-\(getpid())"
        let written = packed.withUnsafeBytes {
            png_image_write_to_file(&image, temporary, 0, $0.baseAddress, Int32(width * 3), nil)
        }
        defer { png_image_free(&image) }
        guard written != 0 else {
            unlink(temporary)
            let message = withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return "cannot write \(path): \(message.isEmpty ? String(cString: strerror(errno)) : message)"
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            return "cannot write \(path): \(reason)"
        }
        return nil
    }
}
