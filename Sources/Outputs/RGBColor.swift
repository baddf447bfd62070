/// An sRGB colour with 8-bit channels.
public struct RGBColor: Equatable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `0xRRGGBB`
    public init(hex: UInt32) {
        self.init(red: UInt8((hex >> 16) & 0xff), green: UInt8((hex >> 8) & 0xff), blue: UInt8(hex & 0xff))
    }

    /// Channels as 0…1 floats, for GL.
    public var floats: (Float, Float, Float) {
        (Float(red) / 255, Float(green) / 255, Float(blue) / 255)
    }

    /// Largest per-channel difference: a tolerance test for pixels that went through a compositor.
    public func distance(to other: RGBColor) -> Int {
        max(
            abs(Int(red) - Int(other.red)), abs(Int(green) - Int(other.green)),
            abs(Int(blue) - Int(other.blue)))
    }

    public var description: String {
        "#" + [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
