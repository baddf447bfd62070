/// A small PNG writer and reader for screenshots, with no library behind it.
///
/// Swift on Linux has no zlib binding in Foundation, and adding a system library target for one codec is not worth
/// it. Writing needs no compression at all: deflate's "stored" blocks are valid zlib data, so the files are simply
/// as large as the pixels (fine for test artifacts and `multiscreen demo`). Reading (weston's screenshooter writes
/// PNG) needs a real inflater, which is ``Inflater``: the short canonical-Huffman decoder of zlib's `puff.c`.
enum PNG {
    static let signature: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

    /// Encodes RGB8 pixels as a PNG (colour type 2, no filtering, stored deflate blocks).
    static func encode(_ image: Screenshot) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity((image.width * 3 + 1) * image.height)
        for row in 0..<image.height {
            raw.append(0)  // filter type None
            let start = row * image.width * 3
            raw.append(contentsOf: image.pixels[start..<(start + image.width * 3)])
        }
        var zlib: [UInt8] = [0x78, 0x01]  // deflate, 32 KiB window, no preset dictionary, check bits valid
        var offset = 0
        repeat {
            let length = min(65_535, raw.count - offset)
            let isLast = offset + length == raw.count
            zlib.append(isLast ? 1 : 0)  // BFINAL, BTYPE = 00 (stored)
            zlib.append(contentsOf: [UInt8(length & 0xff), UInt8(length >> 8)])
            zlib.append(contentsOf: [UInt8(~length & 0xff), UInt8((~length >> 8) & 0xff)])
            zlib.append(contentsOf: raw[offset..<(offset + length)])
            offset += length
        } while offset < raw.count
        zlib.append(contentsOf: bigEndian(adler32(raw)))

        var header = bigEndian(UInt32(image.width)) + bigEndian(UInt32(image.height))
        header += [8, 2, 0, 0, 0]  // 8 bits, truecolour, deflate, adaptive filtering, no interlace
        return signature + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    /// Decodes an 8-bit, non-interlaced greyscale, RGB or RGBA PNG (alpha is dropped).
    static func decode(_ data: [UInt8]) throws -> Screenshot {
        guard data.starts(with: signature) else { throw HarnessError("not a PNG file") }
        var offset = signature.count
        var width = 0
        var height = 0
        var channels = 0
        var compressed: [UInt8] = []
        while offset + 8 <= data.count {
            let length = Int(readBigEndian(data, offset))
            let type = String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard offset + 12 + length <= data.count else { throw HarnessError("truncated PNG chunk \(type)") }
            let body = data[(offset + 8)..<(offset + 8 + length)]
            switch type {
            case "IHDR":
                width = Int(readBigEndian(data, body.startIndex))
                height = Int(readBigEndian(data, body.startIndex + 4))
                let depth = body[body.startIndex + 8]
                let colorType = body[body.startIndex + 9]
                let interlace = body[body.startIndex + 12]
                channels = [0: 1, 2: 3, 4: 2, 6: 4][colorType] ?? 0
                guard depth == 8, channels > 0, interlace == 0 else {
                    throw HarnessError(
                        "unsupported PNG: depth \(depth), colour type \(colorType), interlace \(interlace)")
                }
            case "IDAT":
                compressed.append(contentsOf: body)
            default:
                break
            }
            offset += 12 + length
        }
        guard width > 0, height > 0, compressed.count > 2 else { throw HarnessError("PNG without image data") }
        var inflater = Inflater(Array(compressed.dropFirst(2)))  // skip the zlib header
        let raw = try inflater.inflate()
        let stride = width * channels
        guard raw.count >= (stride + 1) * height else {
            throw HarnessError("PNG data too short: \(raw.count) bytes for \(width)×\(height)")
        }
        var current = [UInt8](repeating: 0, count: stride)
        var previous = [UInt8](repeating: 0, count: stride)
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 3)
        for row in 0..<height {
            let start = row * (stride + 1)
            let filter = raw[start]
            for index in 0..<stride {
                let value = raw[start + 1 + index]
                let left = index >= channels ? Int(current[index - channels]) : 0
                let up = Int(previous[index])
                let upLeft = index >= channels ? Int(previous[index - channels]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = left
                case 2: predictor = up
                case 3: predictor = (left + up) / 2
                case 4: predictor = paeth(left, up, upLeft)
                default: throw HarnessError("bad PNG filter type \(filter) in row \(row)")
                }
                current[index] = value &+ UInt8(predictor & 0xff)
            }
            for x in 0..<width {
                let base = x * channels
                if channels < 3 {
                    pixels.append(contentsOf: [current[base], current[base], current[base]])
                } else {
                    pixels.append(contentsOf: current[base..<(base + 3)])
                }
            }
            swap(&current, &previous)
        }
        return Screenshot(width: width, height: height, pixels: pixels)
    }

    private static func paeth(_ a: Int, _ b: Int, _ c: Int) -> Int {
        let p = a + b - c
        let pa = abs(p - a)
        let pb = abs(p - b)
        let pc = abs(p - c)
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }

    private static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian(UInt32(body.count)) + typeBytes + body + bigEndian(crc32(typeBytes + body))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)]
    }

    private static func readBigEndian(_ data: [UInt8], _ offset: Int) -> UInt32 {
        data[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static let crcTable: [UInt32] = (0..<256).map { value -> UInt32 in
        var crc = UInt32(value)
        for _ in 0..<8 { crc = crc & 1 == 1 ? 0xedb8_8320 ^ (crc >> 1) : crc >> 1 }
        return crc
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xff)] ^ (crc >> 8) }
        return crc ^ 0xffff_ffff
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        // 5552 is the largest block for which the sums cannot overflow 32 bits (zlib's NMAX).
        var index = 0
        while index < bytes.count {
            let end = min(index + 5552, bytes.count)
            for byte in bytes[index..<end] {
                a += UInt32(byte)
                b += a
            }
            a %= 65_521
            b %= 65_521
            index = end
        }
        return b << 16 | a
    }
}
