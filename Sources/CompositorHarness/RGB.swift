/// An 8-bit sRGB colour, as found in screenshots.
public struct RGB: Hashable, Sendable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `RGB(hex: 0x112233)` is the colour sway's config writes as `#112233`.
    public init(hex: UInt32) {
        self.init(red: UInt8((hex >> 16) & 0xff), green: UInt8((hex >> 8) & 0xff), blue: UInt8(hex & 0xff))
    }

    /// The largest difference of any channel: 0 for equal colours. Compositors may dither or blend by a unit or two.
    public func distance(to other: RGB) -> Int {
        max(
            abs(Int(red) - Int(other.red)), abs(Int(green) - Int(other.green)),
            abs(Int(blue) - Int(other.blue)))
    }

    /// `#rrggbb`.
    public var description: String {
        "#"
            + [red, green, blue].map { byte in
                let hex = String(byte, radix: 16)
                return hex.count == 1 ? "0" + hex : hex
            }.joined()
    }
}
