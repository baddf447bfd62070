/// One line of input text (between newlines) as the flat Unicode scalar array HarfBuzz takes, with the
/// boundaries of its grapheme clusters, the only places where fonts may change and lines may wrap.
struct Paragraph {
    let characters: [Character]
    let scalars: [UInt32]
    /// Scalar offset of each character in ``scalars``, plus ``scalars``' count as a sentinel.
    let characterStarts: [Int]
    /// Offset of this paragraph's first scalar in the whole text, so clusters can be reported against it.
    let textOffset: Int

    init(_ text: Substring, textOffset: Int) {
        var characters: [Character] = []
        var scalars: [UInt32] = []
        var starts: [Int] = []
        for character in text {
            starts.append(scalars.count)
            // Control characters (tab, stray CR) have no glyph in most fonts: show them as spaces, not tofu.
            let isControl = character.unicodeScalars.allSatisfy { $0.properties.generalCategory == .control }
            let shown: Character = isControl ? " " : character
            characters.append(shown)
            scalars.append(contentsOf: shown.unicodeScalars.map(\.value))
        }
        starts.append(scalars.count)
        self.characters = characters
        self.scalars = scalars
        self.characterStarts = starts
        self.textOffset = textOffset
    }

    /// Splits `text` at every newline ("\n", "\r\n", U+2028…); the offsets count the newline scalars too.
    static func split(_ text: String) -> [Paragraph] {
        var paragraphs: [Paragraph] = []
        var offset = 0
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            paragraphs.append(Paragraph(line, textOffset: offset))
            offset += line.unicodeScalars.count
            // The separator itself: one Character, which may be two scalars ("\r\n").
            if line.endIndex < text.endIndex { offset += text[line.endIndex].unicodeScalars.count }
        }
        return paragraphs
    }

    /// Greedy line breaking: `advances[i]` is the width of character `i` in 26.6 units. Lines break after runs
    /// of whitespace; a word wider than `maxWidth` on its own (or text without spaces, as in Japanese) breaks
    /// between characters instead. Returns character ranges without the whitespace at the breaks.
    static func wrap(characters: [Character], advances: [Int], maxWidth: Int) -> [Range<Int>] {
        let count = characters.count
        guard count > 0 else { return [0..<0] }
        var lines: [Range<Int>] = []
        var start = 0
        while start < count {
            var width = 0
            var lastBreak: Int?
            var index = start
            var end = count
            while index < count {
                if characters[index].isWhitespace {
                    width += advances[index]
                    index += 1
                    if index < count && !characters[index].isWhitespace { lastBreak = index }
                    continue
                }
                if width + advances[index] > maxWidth && index > start {
                    end = lastBreak ?? index
                    break
                }
                width += advances[index]
                index += 1
            }
            var visibleEnd = end
            while visibleEnd > start && characters[visibleEnd - 1].isWhitespace && end < count { visibleEnd -= 1 }
            lines.append(start..<visibleEnd)
            start = end
        }
        return lines
    }
}
