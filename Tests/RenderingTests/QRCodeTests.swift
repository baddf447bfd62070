import Testing

@testable import Rendering

@Suite struct QRCodeTests {
    @Test func encodesALinkWithFinderPatterns() throws {
        let code = try #require(QRCode("http://127.0.0.1:8080/?code=AAAAAAAAAAAAAAAAAAAAAA"))
        // Version n is 17 + 4n modules wide; a 50-byte link needs at least version 3 at level M.
        #expect(code.size >= 29 && (code.size - 17) % 4 == 0)
        #expect(code.modules.count == code.size * code.size)
        // The three finder patterns: a dark 7×7 ring with a light ring inside and a dark 3×3 centre.
        for (originX, originY) in [(0, 0), (code.size - 7, 0), (0, code.size - 7)] {
            for offset in 0..<7 {
                #expect(code.isDark(x: originX + offset, y: originY))
                #expect(code.isDark(x: originX, y: originY + offset))
            }
            #expect(!code.isDark(x: originX + 1, y: originY + 1))
            #expect(code.isDark(x: originX + 3, y: originY + 3))
        }
    }

    @Test func pixelsHaveAQuietZone() throws {
        let code = try #require(QRCode("hello"))
        let (side, pixels) = code.rgbaWithQuietZone
        #expect(side == code.size + 2 * QRCode.quietZone)
        #expect(pixels.count == side * side * 4)
        // The margin is white and opaque; the first module inside it is the finder pattern's dark corner.
        #expect(pixels[0..<4] == [255, 255, 255, 255])
        let corner = ((QRCode.quietZone * side) + QRCode.quietZone) * 4
        #expect(pixels[corner..<corner + 4] == [0, 0, 0, 255])
    }

    @Test func differentTextsDiffer() throws {
        #expect(try #require(QRCode("a")) != (try #require(QRCode("b"))))
    }
}

@Suite struct QRCodeCacheTests {
    /// A screen showing the remote's code redraws for every message: the link is encoded once, not per frame.
    @Test func encodesEachLinkOnce() throws {
        let cache = QRCodeCache()
        let first = try #require(cache.code(for: "http://127.0.0.1:8080/?code=first"))
        #expect(cache.code(for: "http://127.0.0.1:8080/?code=first") == first)
        #expect(cache.encodings == 1)
        #expect(first == QRCode("http://127.0.0.1:8080/?code=first"))
        let second = cache.code(for: "http://127.0.0.1:8080/?code=second")
        #expect(second != nil && second != first)
        #expect(cache.encodings == 2)
    }
}
