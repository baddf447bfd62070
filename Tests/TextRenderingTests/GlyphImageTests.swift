import Testing

@testable import TextRendering

/// The pixel conversions, without FreeType.
struct GlyphImageTests {
    @Test func colorPixelsBecomeCoverageByDarkness() {
        #expect(GlyphImage.coverage(blue: 0, green: 0, red: 0, alpha: 0) == 0)
        #expect(GlyphImage.coverage(blue: 0, green: 0, red: 0, alpha: 255) == 255)
        #expect(GlyphImage.coverage(blue: 255, green: 255, red: 255, alpha: 255) == 0)
        // Premultiplied half-transparent black is half coverage.
        #expect(GlyphImage.coverage(blue: 0, green: 0, red: 0, alpha: 128) == 128)
        let yellow = GlyphImage.coverage(blue: 0, green: 200, red: 255, alpha: 255)
        #expect(yellow > 0 && yellow < 128)
    }

    @Test func scalingAveragesBoxes() {
        let image = GlyphImage(width: 4, height: 2, left: 8, top: 4, pixels: [255, 255, 0, 0, 255, 255, 0, 0])
        let half = image.scaled(by: 0.5)
        #expect(half.width == 2 && half.height == 1)
        #expect(half.pixels == [255, 0])
        #expect(half.left == 4 && half.top == 2)
        #expect(image.scaled(by: 1).pixels == image.pixels)
        let double = image.scaled(by: 2)
        #expect(double.width == 8 && double.height == 4)
        #expect(double.pixels.prefix(8) == [255, 255, 255, 255, 0, 0, 0, 0])
    }

    @Test func bestStrikePrefersDownscaling() {
        #expect(LoadedFace.bestStrike([16, 32, 109], for: 24) == 1)
        #expect(LoadedFace.bestStrike([109], for: 32) == 0)
        #expect(LoadedFace.bestStrike([16, 20], for: 32) == 1)
    }
}
