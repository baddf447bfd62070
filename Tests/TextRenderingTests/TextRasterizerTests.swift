import Foundation
import Testing

@testable import TextRendering

/// Real fonts, real FreeType: these need fonts-dejavu-core, fonts-noto-cjk and fonts-noto-color-emoji installed
/// (scripts/dependencies installs them).
/// Set TEXT_DUMP_DIR to write every rendered bitmap there as a PGM, to look at them.
@Suite struct TextRasterizerTests {
    let rasterizer: TextRasterizer

    init() throws {
        rasterizer = try TextRasterizer()
    }

    private func render(_ text: String, pixelSize: Int = 32, maxWidth: Int? = nil, name: String) -> TextBitmap {
        let bitmap = rasterizer.render(text, pixelSize: pixelSize, maxWidth: maxWidth)
        if let directory = ProcessInfo.processInfo.environment["TEXT_DUMP_DIR"], bitmap.width > 0 {
            let header = Data("P5\n\(bitmap.width) \(bitmap.height)\n255\n".utf8)
            try? (header + Data(bitmap.pixels)).write(to: URL(fileURLWithPath: "\(directory)/\(name).pgm"))
        }
        return bitmap
    }

    private func inkedPixels(_ bitmap: TextBitmap) -> Int {
        bitmap.pixels.count { $0 > 0 }
    }

    @Test func asciiHasCoverageAndWidensWithLength() {
        let short = render("Hi", name: "hi")
        let long = render("Hello, world!", name: "hello")
        #expect(short.width > 0 && short.height > 0)
        #expect(inkedPixels(short) > 20)
        #expect(long.width > short.width * 3)
        #expect(short.pixels.count == short.width * short.height)
        #expect(short.baseline > 0 && short.baseline < short.height)
    }

    @Test func latinUsesThePrimaryFont() throws {
        let runs = rasterizer.shape("Hello", pixelSize: 32)
        #expect(runs.count == 1)
        let run = try #require(runs.first)
        #expect(run.fontFamily == rasterizer.fallbackFamilies.first)
        #expect(run.glyphs.count == 5)
        #expect(run.glyphs.allSatisfy { $0.id != 0 && $0.xAdvance > 0 })
    }

    @Test(arguments: ["안녕하세요", "こんにちは世界", "日本語のテキスト"])
    func cjkRendersRealGlyphs(text: String) throws {
        let runs = rasterizer.shape(text, pixelSize: 32)
        let glyphs = runs.flatMap(\.glyphs)
        #expect(!glyphs.isEmpty)
        #expect(glyphs.allSatisfy { $0.id != 0 }, "tofu in \(text): \(runs)")
        #expect(runs.allSatisfy { $0.fontFamily.contains("CJK") }, "\(runs.map(\.fontFamily))")
        let bitmap = render(text, name: "cjk-\(text.unicodeScalars.first!.value)")
        #expect(inkedPixels(bitmap) > 200)
        // CJK characters are about one em wide each.
        #expect(bitmap.width >= text.count * 32 * 8 / 10)
    }

    @Test func mixedLatinAndKoreanPicksTwoFonts() {
        let text = "Hello 안녕하세요"
        let runs = rasterizer.shape(text, pixelSize: 24)
        #expect(Set(runs.map(\.fontFamily)).count == 2)
        #expect(runs.count == 2)
        #expect(runs.flatMap(\.glyphs).allSatisfy { $0.id != 0 })
        // The space stays with "Hello", and the runs tile the text.
        #expect(runs.map(\.scalarRange) == [0..<6, 6..<11])
        #expect(render(text, name: "mixed").width > render("Hello", name: "hello-only").width)
    }

    @Test func emptyTextIsZeroByZero() {
        #expect(rasterizer.render("", pixelSize: 32) == .empty)
        #expect(rasterizer.render("", pixelSize: 32).pixels.isEmpty)
        #expect(rasterizer.measure("", pixelSize: 32) == (0, 0))
        #expect(rasterizer.shape("", pixelSize: 32).isEmpty)
    }

    @Test func multiLineTextIsTaller() {
        let one = render("Line", name: "one-line")
        let two = render("Line\nLine", name: "two-lines")
        let three = render("Line\n\nLine", name: "blank-line")
        #expect(two.height >= one.height * 2 - 2)
        #expect(three.height > two.height)
        #expect(two.width == one.width)
        #expect(two.baseline == one.baseline)
        // "\r\n" is one line break, not two.
        #expect(rasterizer.render("Line\r\nLine", pixelSize: 32) == two)
    }

    @Test func maxWidthWrapsAtSpaces() {
        let text = "the quick brown fox jumps over the lazy dog"
        let unwrapped = render(text, name: "unwrapped")
        let wrapped = render(text, maxWidth: 200, name: "wrapped")
        #expect(wrapped.width <= 200)
        #expect(wrapped.height >= unwrapped.height * 3)
        // Wrapping only at spaces: each line is one of the words' prefixes, so "quick brown" is never split.
        #expect(render("quick brown", maxWidth: 200, name: "fits") == render("quick brown", name: "fits2"))
        // A maxWidth wider than the text changes nothing.
        #expect(rasterizer.render(text, pixelSize: 32, maxWidth: 10_000) == unwrapped)
    }

    @Test func wrappingBreaksWordsOnlyWhenTheyCannotFit() {
        let japanese = render("日本語のテキストを折り返す", maxWidth: 100, name: "japanese-wrapped")
        #expect(japanese.width <= 100)
        #expect(japanese.height > render("日本語", name: "japanese-line").height * 3)
        let breaks = Paragraph.wrap(
            characters: Array("aa bb cc"), advances: Array(repeating: 64, count: 8), maxWidth: 5 * 64)
        #expect(breaks == [0..<5, 6..<8])
        let longWord = Paragraph.wrap(
            characters: Array("abcdefg"), advances: Array(repeating: 64, count: 7), maxWidth: 3 * 64)
        #expect(longWord == [0..<3, 3..<6, 6..<7])
    }

    @Test func largerPixelSizeGivesLargerBitmap() {
        let small = render("Size", pixelSize: 16, name: "size16")
        let large = render("Size", pixelSize: 48, name: "size48")
        #expect(large.width > small.width * 2)
        #expect(large.height > small.height * 2)
        #expect(inkedPixels(large) > inkedPixels(small) * 4)
    }

    @Test func renderingIsDeterministicAndCached() {
        let text = "Déjà vu 안녕 ✓"
        let first = render(text, name: "determinism")
        let rasterized = rasterizer.statistics.glyphsRasterized
        let second = rasterizer.render(text, pixelSize: 32)
        #expect(first == second)
        #expect(rasterizer.statistics.glyphsRasterized == rasterized, "second render should hit the glyph cache")
        #expect(rasterizer.statistics.glyphCacheHits > 0)
        let other = try? TextRasterizer()
        #expect(other?.render(text, pixelSize: 32) == first)
    }

    /// `measure` and `render` share one layout, so their agreement alone proves little; the size is also checked
    /// against what is independent of that layout: HarfBuzz's advances (the width holds the pen's travel), each
    /// line measured alone (lines stack), every glyph's coverage rendered alone (nothing is clipped: the
    /// characters' ink adds up to the whole's) and the ink's extent (no padding beyond the glyphs' bearings).
    @Test func measureMatchesRender() {
        for text in ["Hello", "안녕하세요\nworld", "jumpy (Qg)"] {
            let bitmap = rasterizer.render(text, pixelSize: 20)
            let size = rasterizer.measure(text, pixelSize: 20)
            #expect(size == (bitmap.width, bitmap.height))
            let lines = text.split(separator: "\n").map(String.init)
            for line in lines {
                let advance = rasterizer.shape(line, pixelSize: 20).flatMap(\.glyphs).map { Int($0.xAdvance) }
                    .reduce(0, +)
                #expect(size.width >= (advance + 63) / 64, "\(line): the pen travels \(advance / 64) px")
            }
            let lineSizes = lines.map { rasterizer.measure($0, pixelSize: 20) }
            #expect(size.width == lineSizes.map(\.width).max(), "\(text): as wide as its widest line")
            #expect(size.height == lineSizes.map(\.height).reduce(0, +), "\(text): its lines stacked")
            let characters = text.filter { !$0.isWhitespace }.map {
                inkSum(rasterizer.render(String($0), pixelSize: 20))
            }
            #expect(inkSum(bitmap) == characters.reduce(0, +), "\(text): every glyph's coverage, none clipped")
            let columns = (0..<bitmap.width).filter { x in
                (0..<bitmap.height).contains { bitmap.pixels[$0 * bitmap.width + x] > 0 }
            }
            #expect(columns.first.map { $0 <= 3 } == true, "\(text): ink from column \(columns.first ?? -1)")
            #expect(
                columns.last.map { $0 >= bitmap.width - 4 } == true,
                "\(text): ink to column \(columns.last ?? -1) of \(bitmap.width)")
        }
    }

    private func inkSum(_ bitmap: TextBitmap) -> Int { bitmap.pixels.reduce(0) { $0 + Int($1) } }

    @Test func rightToLeftShapesInVisualOrder() throws {
        let runs = rasterizer.shape("שלום", pixelSize: 32)
        let glyphs = try #require(runs.first?.glyphs)
        #expect(glyphs.allSatisfy { $0.id != 0 })
        // HarfBuzz returns right-to-left glyphs reversed: the last character's glyph comes first.
        #expect(glyphs.map(\.cluster) == [3, 2, 1, 0])
        #expect(render("שלום", name: "hebrew").width > 0)
    }

    @Test func unknownFamilyFallsBackToSomeFont() throws {
        // fontconfig always substitutes a default font for an unknown family name rather than failing.
        let fallback = try TextRasterizer(family: "No Such Family 12345")
        #expect(fallback.render("abc", pixelSize: 16).width > 0)
    }

    /// With the colour emoji font scripts/dependencies installs (fonts-noto-color-emoji): without it this test fails,
    /// it is not skipped. The crab, as DejaVu Sans draws the older smileys itself and, being first in the list, wins
    /// them.
    @Test func colorEmojiBecomesCoverage() throws {
        try #require(
            rasterizer.fallbackFamilies.contains { $0.localizedCaseInsensitiveContains("emoji") },
            "no colour emoji font: install fonts-noto-color-emoji (scripts/dependencies)")
        let runs = rasterizer.shape("🦀", pixelSize: 32)
        let run = try #require(runs.first)
        #expect(run.glyphs.allSatisfy { $0.id != 0 })
        let bitmap = render("🦀", name: "emoji")
        #expect(rasterizer.statistics.colorGlyphsConverted > 0)
        #expect(run.fontFamily == "Noto Color Emoji")
        // The 109 px strike is scaled down to about the requested size.
        #expect(bitmap.width > 20 && bitmap.width < 50)
        #expect(inkedPixels(bitmap) > 300)
    }
}
