import Outputs

/// Tells an image from a video by the file's first bytes (its magic numbers), never by its name: a signage
/// playlist is full of `.jpg` files that are PNGs and `.mov` files that are MP4s, and a name proves nothing about a
/// file that came from a phone or the fleet.
public enum MediaProbe {
    /// How many bytes are read: enough for every signature below and for an SVG's prologue and comments.
    static let sniffedBytes = 4096

    /// - Throws: ``MediaError/notFound(path:)``, ``MediaError/notAFile(path:)``, ``MediaError/unreadable(path:reason:)``,
    ///   ``MediaError/empty(path:)``, or ``MediaError/unsupported(path:reason:)`` when the bytes are neither.
    public static func kind(ofFileAt path: String) throws(MediaError) -> MediaKind {
        let bytes = try MediaFile.head(path, count: sniffedBytes)
        if let kind = kind(of: bytes) { return kind }
        let start = bytes.prefix(8).map { String($0, radix: 16, uppercase: true) }.joined(separator: " ")
        throw .unsupported(path: path, reason: "neither an image nor a video by its first bytes (\(start))")
    }

    /// The kind the first bytes of a file say, or nil.
    static func kind(of bytes: [UInt8]) -> MediaKind? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && Array(bytes[offset..<offset + magic.count]) == magic
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }

        // Images GdkPixbuf decodes.
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .image }  // PNG
        if starts([0xFF, 0xD8, 0xFF]) { return .image }  // JPEG
        if ascii("GIF87a") || ascii("GIF89a") { return .image }
        if ascii("RIFF") && ascii("WEBP", at: 8) { return .image }
        if ascii("BM") && bytes.count >= 14 { return .image }  // BMP
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .image }  // TIFF
        if isSVG(bytes) { return .image }
        // ISO base media (MP4, MOV, 3GP): a `ftyp` box first, whose major brand tells the still-image
        // formats of the same container (AVIF, HEIF) apart.
        if ascii("ftyp", at: 4) {
            let brand = bytes.count >= 12 ? String(decoding: bytes[8..<12], as: UTF8.self) : ""
            return ["avif", "avis", "heic", "heix", "mif1", "msf1"].contains(brand) ? .image : .video
        }
        // QuickTime files without `ftyp` begin with another top-level box.
        if ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(where: { ascii($0, at: 4) }) { return .video }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return .video }  // Matroska, WebM (EBML)
        if ascii("OggS") { return .video }
        if ascii("RIFF") && ascii("AVI ", at: 8) { return .video }
        if ascii("FLV") { return .video }
        if starts([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11]) { return .video }  // ASF, WMV
        if starts([0x00, 0x00, 0x01, 0xBA]) || starts([0x00, 0x00, 0x01, 0xB3]) { return .video }  // MPEG-PS, MPEG-1/2
        if bytes.count >= 377 && bytes[0] == 0x47 && bytes[188] == 0x47 && bytes[376] == 0x47 { return .video }  // TS
        return nil
    }

    /// An SVG document: text starting (after a byte-order mark and white space) with `<svg`, or with an XML
    /// declaration, a comment or a doctype followed by an `<svg` element within the bytes read.
    private static func isSVG(_ bytes: [UInt8]) -> Bool {
        var text = Substring(String(decoding: bytes, as: UTF8.self))
        if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
        text = text.drop { $0.isWhitespace }
        if text.hasPrefix("<svg") { return true }
        guard text.hasPrefix("<?xml") || text.hasPrefix("<!--") || text.hasPrefix("<!DOCTYPE") else { return false }
        return text.contains("<svg")
    }
}
