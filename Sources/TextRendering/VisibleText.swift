/// What text is laid out from what it was given: control characters made visible, line ends made uniform, and
/// text longer than any box could show cut (so a 64 KiB message costs as much as the box it is shown in).
public enum VisibleText {
    /// C0 controls (other than line feed and tab) become their Unicode Control Pictures (U+2400 + code: "␀",
    /// "␛", …), DEL becomes "␡" and C1 controls "�", so that the same input always shows the same visible marks
    /// and never moves the text or the terminal that logs it. "\n", "\r\n", a lone "\r" and U+2029 become U+2028
    /// LINE SEPARATOR (a space when not `keepsLineBreaks`); a tab becomes a space.
    ///
    /// Why U+2028 and not "\n": Pango keeps at least one line of every paragraph whatever the height limit, so
    /// 30 short lines as 30 paragraphs would overflow any box without an ellipsis. As line separators they stay
    /// one paragraph, which Pango cuts at the box's height and ends in "…". The price: one base direction for the
    /// whole text (from its first strong character), so an Arabic line after an English one is aligned like it
    /// (still in the right order within itself).
    public static func sanitized(_ text: String, keepsLineBreaks: Bool = true) -> String {
        var scalars = String.UnicodeScalarView()
        var previousWasCarriageReturn = false
        for scalar in text.unicodeScalars {
            defer { previousWasCarriageReturn = scalar == "\r" }
            switch scalar.value {
            case 0x0A:
                if previousWasCarriageReturn { continue }
                scalars.append(keepsLineBreaks ? "\u{2028}" : " ")
            case 0x0D:
                scalars.append(keepsLineBreaks ? "\u{2028}" : " ")
            case 0x09:
                scalars.append(" ")
            case 0x00...0x1F:
                scalars.append(Unicode.Scalar(0x2400 + scalar.value)!)
            case 0x7F:
                scalars.append("\u{2421}")
            case 0x80...0x9F:
                scalars.append("\u{FFFD}")
            case 0x2028, 0x2029:
                // Line and paragraph separators: Pango breaks on them, so they count as line breaks here too.
                scalars.append(keepsLineBreaks ? "\u{2028}" : " ")
            default:
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// How many characters could at most be visible in a box: every line full of the narrowest glyphs (a fifth
    /// of an em wide, narrower than "i" or a space in common fonts, with a margin of 2×). Text longer than this is
    /// cut before layout and ends in an ellipsis anyway.
    public static func characterBudget(pixelSize: Int, box: TextBox, maxTextureSize: Int) -> Int {
        let size = max(pixelSize, 1)
        let width = min(box.maxWidth ?? maxTextureSize, maxTextureSize)
        let height = min(box.maxHeight ?? maxTextureSize, maxTextureSize)
        let lineHeight = max(size, 1)
        let lines = min(max(height / lineHeight, 1), box.maxLines ?? Int.max)
        let perLine = max(width * 5 / size, 1) * 2
        return lines * perLine + 16
    }

    /// `text` cut to at most `budget` characters (grapheme clusters), and whether it was cut. Counting stops at the
    /// budget, so a long text costs no more than the budget to check.
    public static func prefix(_ text: String, characters budget: Int) -> (text: String, cut: Bool) {
        var index = text.startIndex
        var count = 0
        while index < text.endIndex {
            if count == budget { return (String(text[..<index]) + "…", true) }
            index = text.index(after: index)
            count += 1
        }
        return (text, false)
    }
}
