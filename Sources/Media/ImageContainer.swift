/// What an image file's container says before any pixel is decoded: whether it is whole, a JPEG's EXIF
/// orientation, and for GIF and WebP how many frames it holds and whether it loops.
///
/// Why walk the container ourselves: GdkPixbuf's JPEG and PNG loaders return a partial picture without an error
/// when the file is cut short (libjpeg's "premature end" is only a warning; the rest is filled grey), and its
/// animation API has no frame count. A walk of the markers, chunks or blocks is cheap (the entropy-coded data is
/// skipped with `memchr`, 64 KiB at a time) and finds both.
struct ImageContainer: Equatable {
    var frames = 1
    var loops = false
    /// The EXIF orientation (1–8; 1 is upright) of a JPEG, known before decoding so that the size to decode at is
    /// computed for the picture as it will be shown.
    var orientation = 1
    /// Why the file is not whole, or nil.
    var damage: String?

    /// Walks `bytes` as the format GdkPixbuf named (`jpeg`, `png`, `gif`, `webp`); other formats pass as whole.
    static func read(_ bytes: FileBytes, format: String) -> ImageContainer {
        switch format {
        case "jpeg": jpeg(bytes)
        case "png": ImageContainer(damage: pngDamage(bytes))
        case "gif": gif(bytes)
        case "webp": webp(bytes)
        default: ImageContainer()
        }
    }

    /// JPEG: the segments from SOI (reading the EXIF orientation on the way), each scan's entropy-coded data up to
    /// its next marker, until EOI.
    static func jpeg(_ bytes: FileBytes) -> ImageContainer {
        var result = ImageContainer()
        result.damage = jpegDamage(bytes) { result.orientation = $0 }
        return result
    }

    private static func jpegDamage(_ bytes: FileBytes, orientation: (Int) -> Void) -> String? {
        let truncated = "truncated: the JPEG ends before its end-of-image marker"
        let count = bytes.count
        guard count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return "not a JPEG stream" }
        var index = 2
        var exifRead = false
        while true {
            guard index + 1 < count else { return truncated }
            guard bytes[index] == 0xFF else { return "a JPEG segment does not start with a marker" }
            while index + 1 < count && bytes[index + 1] == 0xFF { index += 1 }  // fill bytes
            guard index + 1 < count else { return truncated }
            let marker = bytes[index + 1]
            index += 2
            if marker == 0xD9 { return nil }  // EOI
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { continue }  // no length
            guard index + 2 <= count else { return truncated }
            let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            guard length >= 2 else { return "a JPEG segment has an impossible length" }
            if marker == 0xE1 && !exifRead && bytes.ascii(at: index + 2, length: 6) == "Exif\0\0" {
                exifRead = true
                if let value = exifOrientation(bytes, tiff: index + 8, end: min(count, index + length)) {
                    orientation(value)
                }
            }
            index += length
            guard index <= count else { return truncated }
            guard marker == 0xDA else { continue }
            // Entropy-coded data: ends at the first 0xFF not followed by a stuffed 0x00 or a restart marker.
            while true {
                guard let found = bytes.firstIndex(of: 0xFF, from: index) else { return truncated }
                index = found
                guard index + 1 < count else { return truncated }
                let next = bytes[index + 1]
                if next == 0x00 || (0xD0...0xD7).contains(next) {
                    index += 2
                } else if next == 0xFF {
                    index += 1
                } else {
                    break
                }
            }
        }
    }

    /// The Orientation tag (0x0112) of IFD0 in the TIFF structure of an EXIF segment at `tiff` ..< `end`, when it
    /// is there and 1–8.
    private static func exifOrientation(_ bytes: FileBytes, tiff: Int, end: Int) -> Int? {
        guard tiff + 8 <= end else { return nil }
        let little: Bool
        switch bytes.ascii(at: tiff, length: 2) {
        case "II": little = true
        case "MM": little = false
        default: return nil
        }
        func number(at offset: Int, size: Int) -> Int? {
            guard offset >= tiff, offset + size <= end else { return nil }
            return (0..<size).reduce(0) { value, byte in
                little ? value | Int(bytes[offset + byte]) << (8 * byte) : value << 8 | Int(bytes[offset + byte])
            }
        }
        guard let ifd = number(at: tiff + 4, size: 4), let entries = number(at: tiff + ifd, size: 2) else { return nil }
        for entry in 0..<min(entries, 512) {
            let at = tiff + ifd + 2 + entry * 12
            guard let tag = number(at: at, size: 2) else { return nil }
            if tag == 0x0112, let type = number(at: at + 2, size: 2), type == 3,
                let value = number(at: at + 8, size: 2), (1...8).contains(value)
            {
                return value
            }
        }
        return nil
    }

    /// PNG: the chunks from the signature until IEND, each wholly present.
    static func pngDamage(_ bytes: FileBytes) -> String? {
        let count = bytes.count
        var index = 8
        while true {
            guard index + 8 <= count else { return "truncated: the PNG ends before its IEND chunk" }
            let length = Int(bigEndian32(bytes, at: index))
            guard length <= Int(Int32.max) else { return "a PNG chunk has an impossible length" }
            let isEnd =
                bytes[index + 4] == 0x49 && bytes[index + 5] == 0x45 && bytes[index + 6] == 0x4E
                && bytes[index + 7] == 0x44
            index += 12 + length
            guard index <= count else { return "truncated: the PNG ends inside a chunk" }
            if isEnd { return nil }
        }
    }

    /// GIF: the blocks after the screen descriptor; counts the images, reads the NETSCAPE2.0 loop count. A file cut
    /// inside an image is damaged; one that only lacks its trailer is not (browsers show those, and so do we).
    static func gif(_ bytes: FileBytes) -> ImageContainer {
        let count = bytes.count
        var result = ImageContainer(frames: 0)
        let truncated = "truncated: the GIF ends inside an image"
        guard count >= 13 else { return ImageContainer(damage: "truncated: the GIF ends inside its header") }
        var index = 13
        if bytes[10] & 0x80 != 0 { index += 3 << (Int(bytes[10] & 7) + 1) }
        /// Skips data sub-blocks; false when the file ends first.
        func skipSubBlocks() -> Bool {
            while index < count {
                let size = Int(bytes[index])
                index += 1 + size
                if size == 0 { return index <= count }
            }
            return false
        }
        loop: while index < count {
            switch bytes[index] {
            case 0x21:  // extension
                guard index + 2 < count else { break loop }
                let label = bytes[index + 1]
                index += 2
                if label == 0xFF, index + 15 < count, bytes[index] == 11,
                    bytes.ascii(at: index + 1, length: 11) == "NETSCAPE2.0",
                    bytes[index + 12] == 3, bytes[index + 13] == 1
                {
                    result.loops = bytes[index + 14] == 0 && bytes[index + 15] == 0
                }
                guard skipSubBlocks() else { break loop }
            case 0x2C:  // image
                guard index + 10 < count else {
                    result.damage = truncated
                    break loop
                }
                let packed = bytes[index + 9]
                index += 10
                if packed & 0x80 != 0 { index += 3 << (Int(packed & 7) + 1) }
                index += 1  // LZW minimum code size
                guard index < count, skipSubBlocks() else {
                    result.damage = truncated
                    break loop
                }
                result.frames += 1
            case 0x3B: break loop  // trailer
            default:
                result.damage = "a GIF block has an unknown introducer"
                break loop
            }
        }
        if result.frames == 0 && result.damage == nil { result.damage = "the GIF holds no image" }
        result.frames = max(result.frames, 1)
        return result
    }

    /// WebP: the RIFF size against the file's, the ANMF frames and the ANIM loop count.
    static func webp(_ bytes: FileBytes) -> ImageContainer {
        let count = bytes.count
        guard count >= 12 else { return ImageContainer(damage: "truncated: the WebP ends inside its header") }
        let riffEnd = Int(littleEndian32(bytes, at: 4)) + 8
        guard riffEnd <= count else {
            return ImageContainer(damage: "truncated: the WebP is shorter than its RIFF size")
        }
        var result = ImageContainer(frames: 0)
        var index = 12
        while index + 8 <= riffEnd {
            let fourCC = bytes.ascii(at: index, length: 4)
            let size = Int(littleEndian32(bytes, at: index + 4))
            if fourCC == "ANMF" { result.frames += 1 }
            if fourCC == "ANIM", size >= 6, index + 14 <= count {
                result.loops = bytes[index + 12] == 0 && bytes[index + 13] == 0
            }
            index += 8 + size + (size & 1)
        }
        if result.frames == 0 { result.loops = false }
        result.frames = max(result.frames, 1)
        return result
    }

    private static func bigEndian32(_ bytes: FileBytes, at index: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[index + $1]) }
    }

    private static func littleEndian32(_ bytes: FileBytes, at index: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[index + $1]) << (8 * $1) }
    }
}
