import Foundation
import Outputs

/// The pixels of one output, as a compositor rendered them.
///
/// Pixels are RGB8, three bytes per pixel, top row first. Alpha is dropped: an output's contents are opaque.
public struct Screenshot: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height * 3` bytes, row-major, top row first.
    public let pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3, "RGB8 needs width * height * 3 bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Parses a binary PPM (`P6`, maxval 255), what `grim -t ppm` writes.
    /// - Throws: ``HarnessError`` for anything else.
    public init(ppm data: [UInt8]) throws {
        var index = 0
        func token() throws -> String {
            // Whitespace and `#` comments separate header fields.
            while index < data.count {
                if data[index] == UInt8(ascii: "#") {
                    while index < data.count && data[index] != UInt8(ascii: "\n") { index += 1 }
                } else if [9, 10, 13, 32].contains(data[index]) {
                    index += 1
                } else {
                    break
                }
            }
            let start = index
            while index < data.count && ![9, 10, 13, 32].contains(data[index]) { index += 1 }
            guard index > start else { throw HarnessError("truncated PPM header (\(data.count) bytes)") }
            return String(decoding: data[start..<index], as: UTF8.self)
        }
        let magic = try token()
        guard magic == "P6" else {
            throw HarnessError("not a binary PPM: starts with \(String(decoding: data.prefix(16), as: UTF8.self))")
        }
        guard let width = Int(try token()), let height = Int(try token()), let maxValue = Int(try token()),
            width > 0, height > 0, maxValue == 255
        else { throw HarnessError("unsupported PPM header") }
        index += 1  // exactly one whitespace byte after maxval
        let expected = width * height * 3
        guard data.count - index >= expected else {
            throw HarnessError("PPM of \(width)×\(height) has \(data.count - index) pixel bytes, needs \(expected)")
        }
        self.init(width: width, height: height, pixels: Array(data[index..<(index + expected)]))
    }

    /// Reads a PNG or PPM file.
    public init(contentsOfFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HarnessError("cannot read \(path)")
        }
        let bytes = [UInt8](data)
        if bytes.starts(with: PNG.signature) {
            self = try PNG.decode(bytes)
        } else {
            try self.init(ppm: bytes)
        }
    }

    /// The colour at (`x`, `y`), (0, 0) being the top left.
    public func pixel(x: Int, y: Int) -> RGBColor {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height)")
        let index = (y * width + x) * 3
        return RGBColor(red: pixels[index], green: pixels[index + 1], blue: pixels[index + 2])
    }

    /// How many pixels have each colour.
    public func histogram() -> [RGBColor: Int] {
        var counts: [RGBColor: Int] = [:]
        for index in stride(from: 0, to: pixels.count, by: 3) {
            counts[RGBColor(red: pixels[index], green: pixels[index + 1], blue: pixels[index + 2]), default: 0] += 1
        }
        return counts
    }

    /// The most frequent colour (black for an empty image).
    public func dominantColor() -> RGBColor {
        histogram().max { $0.value < $1.value }?.key ?? RGBColor(red: 0, green: 0, blue: 0)
    }

    /// The number of pixels for which `predicate` holds.
    public func count(where predicate: (RGBColor) -> Bool) -> Int {
        var count = 0
        for index in stride(from: 0, to: pixels.count, by: 3)
        where predicate(RGBColor(red: pixels[index], green: pixels[index + 1], blue: pixels[index + 2])) {
            count += 1
        }
        return count
    }

    /// The fraction (0…1) of pixels within `tolerance` of `color` (see ``RGBColor/distance(to:)``).
    public func fraction(of color: RGBColor, tolerance: Int = 0) -> Double {
        guard width * height > 0 else { return 0 }
        return Double(count { $0.distance(to: color) <= tolerance }) / Double(width * height)
    }

    /// The fraction (0…1) of pixels that differ from the same pixel of `other`: 1 when the sizes differ, 0 for two
    /// empty images. Tests use it to tell that a picture changed (or stayed the same) without knowing it in advance.
    public func fraction(differingFrom other: Screenshot) -> Double {
        guard width == other.width, height == other.height else { return 1 }
        guard width * height > 0 else { return 0 }
        var differing = 0
        for index in stride(from: 0, to: pixels.count, by: 3)
        where pixels[index] != other.pixels[index] || pixels[index + 1] != other.pixels[index + 1]
            || pixels[index + 2] != other.pixels[index + 2]
        {
            differing += 1
        }
        return Double(differing) / Double(width * height)
    }

    /// The pixels inside a rectangle (clipped to the image), for checks on the part of a picture where something
    /// is drawn rather than on the whole picture.
    public func region(x: Int, y: Int, width: Int, height: Int) -> Screenshot {
        let left = min(max(x, 0), self.width)
        let top = min(max(y, 0), self.height)
        let right = min(max(x + width, left), self.width)
        let bottom = min(max(y + height, top), self.height)
        var bytes: [UInt8] = []
        bytes.reserveCapacity((right - left) * (bottom - top) * 3)
        for row in top..<bottom {
            let start = (row * self.width + left) * 3
            bytes += pixels[start..<(start + (right - left) * 3)]
        }
        return Screenshot(width: right - left, height: bottom - top, pixels: bytes)
    }

    /// The image as a PNG file's bytes (RGB8, compressed by libpng: see ``PNG``).
    ///
    /// - Precondition: the image is not empty (PNG cannot hold a 0-pixel-wide or -high image); ``writePNG(to:)``
    ///   throws instead.
    public func pngData() -> [UInt8] {
        do {
            return try PNG.encode(self)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// Writes the image as a PNG file.
    /// - Throws: ``HarnessError`` with libpng's message if the file cannot be written or the image is empty.
    public func writePNG(to path: String) throws {
        try PNG.write(self, to: path)
    }
}
