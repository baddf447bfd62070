/// How a block of text looks: font, size, colour and alignment.
public struct TextStyle: Hashable, Sendable {
    /// Horizontal alignment of each line within the box.
    public enum Alignment: String, Hashable, Sendable, CaseIterable {
        /// Where the paragraph's direction starts: left for left-to-right text, right for right-to-left text.
        case start
        case center
        /// Opposite of ``start``.
        case end
    }

    /// An sRGB colour, 0…1 per channel.
    public struct Color: Hashable, Sendable {
        public var red: Double
        public var green: Double
        public var blue: Double

        public init(red: Double, green: Double, blue: Double) {
            self.red = red
            self.green = green
            self.blue = blue
        }

        public static let white = Color(red: 1, green: 1, blue: 1)
    }

    public var pixelSize: Int
    public var color: Color
    /// A Pango font description's family part ("sans-serif", "DejaVu Serif", "Noto Sans Arabic, sans"); nil uses the
    /// rasterizer's default family.
    public var family: String?
    public var alignment: Alignment
    public var bold: Bool

    public init(
        pixelSize: Int, color: Color = .white, family: String? = nil, alignment: Alignment = .start, bold: Bool = false
    ) {
        self.pixelSize = pixelSize
        self.color = color
        self.family = family
        self.alignment = alignment
        self.bold = bold
    }
}

/// The space a block of text may take. Lines wrap at `maxWidth` (UAX #14 break opportunities, between characters
/// when a word alone is wider); lines that would go below `maxHeight` are dropped and the last one kept ends in "…".
public struct TextBox: Hashable, Sendable {
    public var maxWidth: Int?
    public var maxHeight: Int?
    /// At most this many lines (the last ellipsised when there is more); nil for as many as `maxHeight` allows.
    public var maxLines: Int?

    public init(maxWidth: Int? = nil, maxHeight: Int? = nil, maxLines: Int? = nil) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxLines = maxLines
    }

    /// One line, ellipsised at `maxWidth`.
    public static func singleLine(maxWidth: Int?) -> TextBox { TextBox(maxWidth: maxWidth, maxLines: 1) }
}
