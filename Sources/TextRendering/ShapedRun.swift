/// One glyph as HarfBuzz positioned it.
///
/// Positions are in 26.6 fixed point (1/64 pixel) at the requested pixel size; for bitmap-only fonts they are
/// already scaled from the strike's size to the requested one.
public struct ShapedGlyph: Sendable, Equatable {
    /// Glyph index in the run's font; 0 is `.notdef` (tofu).
    public let id: UInt32
    /// Offset of the first Unicode scalar of this glyph's cluster in `text.unicodeScalars`.
    public let cluster: Int
    public let xAdvance: Int32
    public let yAdvance: Int32
    public let xOffset: Int32
    public let yOffset: Int32
}

/// A maximal stretch of one line that one font shapes, with the glyphs HarfBuzz produced for it.
///
/// Exposed so that callers (and tests) can see which font the fallback chose and whether any glyph is tofu.
public struct ShapedRun: Sendable, Equatable {
    /// The font's first family name as fontconfig reports it, e.g. "DejaVu Sans" or "Noto Sans CJK JP".
    public let fontFamily: String
    /// Path of the font file and index of the face inside it (collections hold several).
    public let fontFile: String
    public let faceIndex: Int
    /// Offsets of the run's Unicode scalars in `text.unicodeScalars`.
    public let scalarRange: Range<Int>
    /// Glyphs in visual order (right-to-left runs come out reversed, as HarfBuzz returns them).
    public let glyphs: [ShapedGlyph]
}
