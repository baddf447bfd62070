import Testing

@testable import Outputs

/// Fitting a picture on a screen: what the compositor is told to crop and where to put it.
@Suite struct MediaPlacementTests {
    @Test func containLetterboxesAWidePictureOnATallerScreen() {
        // 1600×900 (16:9) on 1280×1024 (5:4): full width, bands above and below.
        let placed = MediaPlacement(
            width: 1600, height: 900, rotation: .none, fit: .contain, screenWidth: 1280, screenHeight: 1024)
        #expect(placed.destination == Rect(x: 0, y: 152, width: 1280, height: 720))
        #expect(!placed.covers(screenWidth: 1280, screenHeight: 1024))
    }

    @Test func coverCropsTheSidesAndFillsTheScreen() {
        let placed = MediaPlacement(
            width: 1600, height: 900, rotation: .none, fit: .cover, screenWidth: 1280, screenHeight: 1024)
        #expect(placed.destination == Rect(x: 0, y: 0, width: 1280, height: 1024))
        // The visible part keeps the screen's aspect ratio, centred: 1125 of 1600 columns, all 900 rows.
        #expect(placed.source == Rect(x: 237, y: 0, width: 1125, height: 900))
        #expect(placed.covers(screenWidth: 1280, screenHeight: 1024))
        #expect(placed.bufferCrop(width: 1600, height: 900, rotation: .none) == (237, 0, 1125, 900))
    }

    /// The crop in the buffer's own pixels: the rectangle that, turned, is the source.
    @Test func theCropIsFoundInTheUnturnedPicture() {
        // A 400×200 picture turned a quarter clockwise is 200×400; its top 200×100 (the turned picture's top rows)
        // are the unturned picture's left 100 columns.
        let quarter = MediaPlacement(
            source: Rect(x: 0, y: 0, width: 200, height: 100), destination: Rect(x: 0, y: 0, width: 1, height: 1))
        #expect(quarter.bufferCrop(width: 400, height: 200, rotation: .quarter) == (0, 0, 100, 200))
        // Its right half (x 100…200 of 200) is the unturned picture's top rows (the top row turns to the right column).
        let right = MediaPlacement(
            source: Rect(x: 100, y: 0, width: 100, height: 400), destination: Rect(x: 0, y: 0, width: 1, height: 1))
        #expect(right.bufferCrop(width: 400, height: 200, rotation: .quarter) == (0, 0, 400, 100))
        #expect(right.bufferCrop(width: 400, height: 200, rotation: .threeQuarters) == (0, 100, 400, 100))
        #expect(right.bufferCrop(width: 200, height: 400, rotation: .half) == (0, 0, 100, 400))
    }

    @Test func stretchFillsTheScreenWithTheWholePicture() {
        let placed = MediaPlacement(
            width: 640, height: 480, rotation: .none, fit: .stretch, screenWidth: 1920, screenHeight: 1080)
        #expect(placed.destination == Rect(x: 0, y: 0, width: 1920, height: 1080))
    }

    @Test func centerShowsOnePicturePixelPerScreenPixel() {
        let small = MediaPlacement(
            width: 640, height: 480, rotation: .none, fit: .center, screenWidth: 1920, screenHeight: 1080)
        #expect(small.destination == Rect(x: 640, y: 300, width: 640, height: 480))
        let large = MediaPlacement(
            width: 4000, height: 3000, rotation: .none, fit: .center, screenWidth: 1920, screenHeight: 1080)
        #expect(large.source == Rect(x: 1040, y: 960, width: 1920, height: 1080))
        #expect(large.destination == Rect(x: 0, y: 0, width: 1920, height: 1080))
        // At scale 2, one picture pixel is half a logical unit.
        let scaled = MediaPlacement(
            width: 640, height: 480, rotation: .none, fit: .center, screenWidth: 960, screenHeight: 540, scale: 2)
        #expect(scaled.destination == Rect(x: 320, y: 150, width: 320, height: 240))
    }

    @Test func aQuarterTurnSwapsThePicturesSides() {
        // 1920×1080 turned a quarter is 1080 wide and 1920 tall: on a 1080×1920 screen it fills it.
        let placed = MediaPlacement(
            width: 1920, height: 1080, rotation: .quarter, fit: .contain, screenWidth: 1080, screenHeight: 1920)
        #expect(placed.destination == Rect(x: 0, y: 0, width: 1080, height: 1920))
    }

    @Test func aPictureIsDecodedNoLargerThanTheScreenNeeds() {
        // A 50-megapixel photo for a 1080p screen: contain needs the picture within 1920×1080.
        let contain = MediaPlacement.decodeSize(
            width: 8000, height: 6250, rotation: .none, fit: .contain, pixelWidth: 1920, pixelHeight: 1080)
        #expect(contain == (1383, 1080))
        // Cover needs it to cover both sides.
        let cover = MediaPlacement.decodeSize(
            width: 8000, height: 6250, rotation: .none, fit: .cover, pixelWidth: 1920, pixelHeight: 1080)
        #expect(cover == (1920, 1500))
        // Never larger than the picture; `center` shows it at its own size.
        #expect(
            MediaPlacement.decodeSize(
                width: 640, height: 480, rotation: .none, fit: .cover, pixelWidth: 1920, pixelHeight: 1080) == (
                    640, 480
                ))
        #expect(
            MediaPlacement.decodeSize(
                width: 8000, height: 6250, rotation: .none, fit: .center, pixelWidth: 1920, pixelHeight: 1080)
                == (8000, 6250))
        // Turned a quarter, a tall screen's height is the picture's width.
        let turned = MediaPlacement.decodeSize(
            width: 8000, height: 4500, rotation: .quarter, fit: .contain, pixelWidth: 1080, pixelHeight: 1920)
        #expect(turned == (1920, 1080))
    }
}
