import Foundation
import Testing

@testable import TextRendering

/// Real fonts, real Pango and cairo: these need fonts-dejavu-core, fonts-noto-cjk and fonts-noto-color-emoji
/// installed (scripts/dependencies installs them).
@Suite struct TextRasterizerTests {
    let rasterizer: TextRasterizer

    init() throws {
        rasterizer = try TextRasterizer()
    }

    private func style(_ size: Int = 32, alignment: TextStyle.Alignment = .start) -> TextStyle {
        TextStyle(pixelSize: size, color: .white, alignment: alignment)
    }

    private func inked(_ bitmap: TextBitmap) -> Int { bitmap.pixels.count { $0 >> 24 > 0 } }

    /// Columns with any ink.
    private func inkColumns(_ bitmap: TextBitmap) -> [Int] {
        (0..<bitmap.width).filter { x in (0..<bitmap.height).contains { bitmap[x, $0].alpha > 0 } }
    }

    /// Texts are drawn into memory the rasterizer keeps: a second text reuses the first one's (no fresh pages), a
    /// longer text starts transparent whatever the one before drew, and a text larger than what is kept gets memory
    /// of its own. Each lent raster holds what ``TextRasterizer/render(_:style:box:maxTextureSize:)`` returns.
    @Test func rastersAreDrawnIntoKeptMemoryAndMatchTheBitmaps() {
        let box = TextBox(maxWidth: 1200)
        let first = rasterizer.withRaster("Doors open at nine", style: style(79), box: box) { raster in
            raster.map { ($0.pixels.baseAddress, Array($0.pixels.bindMemory(to: UInt32.self))) }
        }
        let second = rasterizer.withRaster("Wide open", style: style(79), box: box) { $0?.pixels.baseAddress }
        #expect(first?.0 != nil && first?.0 == second, "the same memory for the next text")
        #expect(first?.1 == rasterizer.render("Doors open at nine", style: style(79), box: box).pixels)
        // Drawn after a text with ink everywhere, a space is still fully transparent.
        _ = rasterizer.render("████████████", style: style(79), box: box)
        #expect(
            rasterizer.withRaster("x  ", style: style(79), box: box) { raster in
                guard let raster else { return false }
                let pixels = raster.pixels.bindMemory(to: UInt32.self)
                return (0..<raster.height).allSatisfy { pixels[$0 * raster.width + raster.width - 1] == 0 }
            })
        let huge = rasterizer.withRaster("Big", style: style(1200)) { raster in
            raster.map { ($0.byteCount, $0.pixels.baseAddress) }
        }
        #expect((huge?.0 ?? 0) > TextRasterizer.scratchKeptBytes)
        #expect(huge?.1 != first?.0, "a text larger than the kept memory gets memory of its own")
        #expect(rasterizer.withRaster("", style: style()) { $0 == nil })
    }

    @Test func asciiHasInkAndWidensWithLength() {
        let short = rasterizer.render("Hi", style: style())
        let long = rasterizer.render("Hello, world!", style: style())
        #expect(short.width > 0 && short.height > 0)
        #expect(inked(short) > 20)
        #expect(long.width > short.width * 3)
        #expect(short.baseline > 0 && short.baseline < short.height)
        #expect(!short.isEllipsized && short.lineCount == 1)
    }

    @Test func emptyTextIsEmpty() {
        #expect(rasterizer.render("", style: style()) == .empty)
        #expect(rasterizer.measure("", style: style()) == (0, 0))
    }

    @Test func measureMatchesRender() {
        let text = "Wrapped text in a narrow box, several lines"
        let box = TextBox(maxWidth: 200, maxHeight: 500)
        let bitmap = rasterizer.render(text, style: style(), box: box)
        let size = rasterizer.measure(text, style: style(), box: box)
        #expect(size == (bitmap.width, bitmap.height))
        #expect(bitmap.lineCount > 2)
    }

    /// UAX #9: in a right-to-left paragraph, "Hello" (a left-to-right run at its logical end) is drawn at the left
    /// and the Arabic at the right. Reference: "Hello" rendered alone by the same library; the mixed line's left
    /// columns must be exactly it.
    @Test func rightToLeftParagraphPutsTheLatinRunAtTheLeft() {
        let mixed = rasterizer.render("مرحبا بالعالم 123 Hello", style: style())
        let hello = rasterizer.render("Hello", style: style())
        #expect(mixed.width > hello.width * 2)
        var same = 0
        for y in 0..<min(mixed.height, hello.height) {
            for x in 0..<hello.width where mixed[x, y] == hello[x, y] { same += 1 }
        }
        #expect(same == hello.width * min(mixed.height, hello.height), "left part of the RTL line is not \"Hello\"")
        // The other way round, the digits are not reversed: "123" in an RTL line equals "123" alone, found right of
        // "Hello".
        let reversed = rasterizer.render("Hello 321", style: style())
        #expect(Array(mixed.pixels.prefix(hello.width)) == Array(reversed.pixels.prefix(hello.width)))
    }

    @Test func rightToLeftTextAlignsToTheRightOfItsBox() {
        let hebrew = rasterizer.render("שלום עולם", style: style(), box: TextBox(maxWidth: 600))
        let latin = rasterizer.render("Hello world", style: style(), box: TextBox(maxWidth: 600))
        #expect(latin.originX == 0)
        #expect(hebrew.originX > 300)
        #expect(hebrew.originX + hebrew.width <= 600)
        let centered = rasterizer.render("Hello", style: style(alignment: .center), box: TextBox(maxWidth: 600))
        #expect(abs(centered.originX + centered.width / 2 - 300) <= 2)
    }

    /// UAX #14: no line starts with "。" (a closing punctuation mark), whatever the width.
    @Test func chineseLinesNeverStartWithAFullStop() {
        let text = "这是一个很长的中文句子。它需要换行显示。每一行都不应该以句号开头。"
        for width in stride(from: 60, through: 400, by: 7) {
            let lines = rasterizer.lines(text, style: style(24), box: TextBox(maxWidth: width, maxHeight: 10_000))
            #expect(lines.count > 1 || width > 300)
            for line in lines { #expect(!line.hasPrefix("。"), "width \(width): \(lines)") }
        }
    }

    @Test func longTextStaysInItsBoxAndEndsInAnEllipsis() {
        let text = String(repeating: "lorem ipsum dolor sit amet ", count: 2_500)  // ~67 KB
        let box = TextBox(maxWidth: 500, maxHeight: 200)
        let bitmap = rasterizer.render(text, style: style(), box: box)
        #expect(bitmap.width <= 500 && bitmap.height <= 200)
        #expect(bitmap.isEllipsized)
        #expect(rasterizer.statistics.inputsCut == 1)
        #expect(bitmap.lineCount <= 200 / 32 + 1)
        // The ellipsis is drawn: the last line ends with the glyph of "…" (its three dots are ink near the end).
        let lines = rasterizer.lines(text, style: style(), box: box)
        #expect(lines.count == bitmap.lineCount)
    }

    /// 64 KiB of line breaks: cut by the budget, then by the box's height, ellipsised.
    @Test func manyLineBreaksStayInTheBox() {
        let text = String(repeating: "a\n", count: 32_768)
        let start = ContinuousClock.now
        let bitmap = rasterizer.render(text, style: style(20), box: TextBox(maxWidth: 600, maxHeight: 200))
        #expect(ContinuousClock.now - start < .seconds(2), "measured 7 ms")
        #expect(bitmap.height <= 200 && bitmap.width <= 600)
        #expect(bitmap.isEllipsized && bitmap.lineCount <= 200 / 20 + 1)
        // Not cut before layout (30 lines are within the budget): Pango drops the lines below the box and ends the
        // last one kept with "…".
        let thirty = (1...30).map { "line \($0)" }.joined(separator: "\n")
        let kept = rasterizer.render(thirty, style: style(20), box: TextBox(maxWidth: 600, maxHeight: 200))
        #expect(rasterizer.statistics.inputsCut == 1)
        #expect(kept.isEllipsized && kept.height <= 200 && kept.lineCount < 30)
    }

    @Test func singleLineBoxEllipsisesAtTheWidth() {
        let bitmap = rasterizer.render(
            "one two three four five six seven eight nine ten", style: style(), box: .singleLine(maxWidth: 200))
        #expect(bitmap.lineCount == 1 && bitmap.isEllipsized && bitmap.width <= 200)
        let multi = rasterizer.render("line one\nline two", style: style(), box: .singleLine(maxWidth: 2_000))
        #expect(multi.lineCount == 1)
    }

    @Test func noSideIsLongerThanTheTextureLimit() {
        let huge = rasterizer.render("Huge", style: style(900), maxTextureSize: 256)
        #expect(huge.width <= 256 && huge.height <= 256)
        let wide = rasterizer.render(String(repeating: "wide ", count: 400), style: style(), maxTextureSize: 512)
        #expect(wide.width <= 512 && wide.height <= 512)
        #expect(wide.isEllipsized)
    }

    @Test func controlCharactersAreShownAsControlPictures() {
        let escaped = rasterizer.render("a\u{1B}[31mb\u{7}", style: style())
        let pictured = rasterizer.render("a␛[31mb␇", style: style())
        #expect(escaped == pictured)
        #expect(VisibleText.sanitized("a\u{0}b\u{7F}c\u{85}d\r\ne\rf\tg\nh") == "a␀b␡c�d\u{2028}e\u{2028}f g\u{2028}h")
        #expect(VisibleText.sanitized("x\ny", keepsLineBreaks: false) == "x y")
    }

    @Test func characterBudgetCutsOnlyWhatCannotShow() {
        #expect(VisibleText.prefix("abc", characters: 3) == ("abc", false))
        #expect(VisibleText.prefix("abcd", characters: 3) == ("abc…", true))
        let budget = VisibleText.characterBudget(
            pixelSize: 20, box: TextBox(maxWidth: 400, maxHeight: 100), maxTextureSize: 4096)
        // 5 lines × 400 px of glyphs 4 px wide, doubled, plus slack: far more than can show, far less than 64 KiB.
        #expect(budget >= 5 * 100 && budget < 2_100)
    }

    @Test func emojiRenderInColour() throws {
        #expect(rasterizer.fontFamily(for: "🦀", style: style())?.localizedCaseInsensitiveContains("emoji") == true)
        let bitmap = rasterizer.render("🦀🍎", style: style(48))
        // White text could only give grey pixels; the crab is red, the apple red and green.
        let coloured = bitmap.pixels.indices.count { index in
            let x = index % bitmap.width
            let pixel = bitmap[x, index / bitmap.width]
            return pixel.alpha > 128 && Int(pixel.red) - Int(pixel.blue) > 80
        }
        #expect(coloured > 100)
    }

    /// The theme's font: the family asked for is used for what it covers, fallback for the rest.
    @Test func aStylesFamilyIsUsed() {
        var serif = style()
        serif.family = "DejaVu Serif"
        #expect(rasterizer.fontFamily(for: "Hello", style: serif) == "DejaVu Serif")
        #expect(rasterizer.fontFamily(for: "Hello", style: style()) == "DejaVu Sans")
        #expect(rasterizer.fontFamily(for: "안녕", style: serif)?.contains("CJK") == true)
        #expect(rasterizer.render("Hello", style: serif) != rasterizer.render("Hello", style: style()))
    }

    @Test func unknownFamilyFallsBack() throws {
        let fallback = try TextRasterizer(family: "No Such Family 12345")
        #expect(inked(fallback.render("Hello", style: style())) > 50)
    }
}

/// The text field's caret, placed by Pango: after the typed characters in left-to-right text, to their left in
/// right-to-left text.
@Suite struct CaretTests {
    @Test func theCaretFollowsTheTextsDirection() throws {
        let rasterizer = try TextRasterizer()
        let style = TextStyle(pixelSize: 24)
        let latin = "abc"
        let latinWidth = rasterizer.measure(latin, style: style, box: TextBox(maxLines: 1)).width
        #expect(rasterizer.caretX(in: latin, beforeCharacter: 0, style: style) <= 1)
        #expect(abs(rasterizer.caretX(in: latin, beforeCharacter: 3, style: style) - latinWidth) <= 1)
        let hebrew = "שלום"
        let hebrewWidth = rasterizer.measure(hebrew, style: style, box: TextBox(maxLines: 1)).width
        let start = rasterizer.caretX(in: hebrew, beforeCharacter: 0, style: style)
        let afterTwo = rasterizer.caretX(in: hebrew, beforeCharacter: 2, style: style)
        let end = rasterizer.caretX(in: hebrew, beforeCharacter: 4, style: style)
        #expect(abs(start - hebrewWidth) <= 1, "right-to-left text starts on the right: \(start) of \(hebrewWidth)")
        #expect(afterTwo < start && afterTwo > end, "typing moves the caret left: \(start) → \(afterTwo) → \(end)")
        #expect(end <= 1)
    }
}

@Suite struct ParagraphDirectionTests {
    @Test func firstStrongCharacterDecides() {
        #expect(TextRasterizer.isRightToLeft("مرحبا بالعالم 123 Hello"))
        #expect(TextRasterizer.isRightToLeft("123 שלום Hello"))
        #expect(!TextRasterizer.isRightToLeft("Hello שלום"))
        #expect(!TextRasterizer.isRightToLeft("123 !"))
    }
}
