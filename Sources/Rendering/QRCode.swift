import CQREncode

/// A QR code's modules, made by libqrencode: `size` × `size`, row-major, true for dark. No quiet zone: whoever
/// draws it adds four modules of light margin (ISO/IEC 18004 asks for four).
public struct QRCode: Sendable, Equatable {
    public let size: Int
    public let modules: [Bool]

    /// Encodes `text` (8-bit mode, error correction level M); nil when it does not fit a QR code or libqrencode
    /// fails.
    public init?(_ text: String) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        size = width
        modules = (0..<width * width).map { data[$0] & 1 == 1 }
    }

    public func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// Modules of light margin on every side.
    public static let quietZone = 4

    /// Opaque RGBA pixels, one per module, the quiet zone included: black on white. For a texture sampled with
    /// nearest filtering and drawn at an integer number of pixels per module.
    public var rgbaWithQuietZone: (side: Int, pixels: [UInt8]) {
        let side = size + 2 * Self.quietZone
        var pixels = [UInt8](repeating: 255, count: side * side * 4)
        for y in 0..<size {
            for x in 0..<size where isDark(x: x, y: y) {
                let offset = ((y + Self.quietZone) * side + x + Self.quietZone) * 4
                pixels[offset] = 0
                pixels[offset + 1] = 0
                pixels[offset + 2] = 0
            }
        }
        return (side, pixels)
    }
}
