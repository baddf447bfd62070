import Foundation
import SystemCalls
import Testing

@testable import Media

@Suite struct ImageDecoderTests {
    let fullHD = (width: 1920, height: 1080)

    private func pixel(_ image: DecodedImage, frame: Int = 0, x: Int, y: Int) -> UInt32 {
        image.frames[frame].words[y * Int(image.frames[frame].stride / 4) + x]
    }

    /// Whether `value` is within `tolerance` of `expected` in each of R, G, B (lossy formats, filtering).
    private func near(_ value: UInt32, _ expected: UInt32, tolerance: Int = 12) -> Bool {
        [16, 8, 0].allSatisfy { shift in
            abs(Int(value >> UInt32(shift) & 0xFF) - Int(expected >> UInt32(shift) & 0xFF)) <= tolerance
        }
    }

    @Test func redStaysRedInXRGBByteOrder() throws {
        let image = try ImageDecoder.decode(path: MediaFixtures.redPNG(), fitting: fullHD)
        #expect(image.width == 640 && image.height == 360)
        #expect(image.sourceWidth == 640 && image.sourceHeight == 360)
        #expect(image.frames.count == 1 && image.delays == [0] && !image.loops)
        let bytes = image.frames[0].pixels.assumingMemoryBound(to: UInt8.self)
        #expect([bytes[0], bytes[1], bytes[2], bytes[3]] == [0x00, 0x00, 0xFF, 0xFF])
        #expect(pixel(image, x: 639, y: 359) == 0xFFFF_0000)
    }

    @Test func scaledDownNeverUp() throws {
        let small = try ImageDecoder.decode(path: MediaFixtures.redPNG(), fitting: (320, 320))
        #expect(small.width == 320 && small.height == 180)
        #expect(small.sourceWidth == 640 && small.sourceHeight == 360)
        let notUp = try ImageDecoder.decode(path: MediaFixtures.redPNG(), fitting: (3840, 2160))
        #expect(notUp.width == 640 && notUp.height == 360)
    }

    @Test func exifOrientationTurnsTheImage() throws {
        let image = try ImageDecoder.decode(path: MediaFixtures.rotatedJPEG(), fitting: fullHD)
        #expect(image.width == 100 && image.height == 200)
        #expect(image.sourceWidth == 100 && image.sourceHeight == 200)
        // The gradient runs red (top) to blue (bottom) as stored; turned clockwise, red is on the right.
        #expect(near(pixel(image, x: 99, y: 100), 0xFFFF_0000, tolerance: 30))
        #expect(near(pixel(image, x: 0, y: 100), 0xFF00_00FF, tolerance: 30))
        // Fitting a box as wide as the stored image is high: the turned image fills its height.
        let fitted = try ImageDecoder.decode(path: MediaFixtures.rotatedJPEG(), fitting: (100, 100))
        #expect(fitted.width == 50 && fitted.height == 100)
    }

    @Test func aDecompressionBombIsRefusedFromItsHeader() throws {
        let before = residentBytes()
        #expect(throws: MediaError.tooLarge(width: 100_000, height: 100_000, limit: 100_000_000)) {
            try ImageDecoder.decode(path: MediaFixtures.bombPNG(), fitting: fullHD)
        }
        #expect(residentBytes() - before < 64 << 20)
    }

    @Test func aLowerLimitRefusesSooner() throws {
        var limits = ImageLimits()
        limits.maximumSourcePixels = 1000
        #expect(throws: MediaError.tooLarge(width: 640, height: 360, limit: 1000)) {
            try ImageDecoder.decode(path: MediaFixtures.redPNG(), fitting: fullHD, limits: limits)
        }
    }

    @Test func truncatedFilesAreCorrupt() throws {
        for path in [try MediaFixtures.truncatedJPEG(), try MediaFixtures.truncatedPNG()] {
            let error = refusal { _ = try ImageDecoder.decode(path: path, fitting: fullHD) }
            guard case .corrupt(path, let reason) = error else {
                Issue.record("\(path): \(String(describing: error))")
                continue
            }
            #expect(reason.contains("truncated"))
        }
        // The whole file is fine.
        #expect(try ImageDecoder.decode(path: MediaFixtures.gradientJPEG(), fitting: fullHD).width == 640)
    }

    @Test func animatedGIFHasEveryFrame() throws {
        let image = try ImageDecoder.decode(path: MediaFixtures.animatedGIF(), fitting: fullHD)
        #expect(image.frames.count == 2 && image.loops)
        #expect(image.delays == [0.1, 0.1])
        #expect(image.width == 64 && image.height == 48)
        #expect(pixel(image, frame: 0, x: 10, y: 10) == 0xFFFF_0000)
        #expect(pixel(image, frame: 1, x: 10, y: 10) == 0xFF00_00FF)
        let scaled = try ImageDecoder.decode(path: MediaFixtures.animatedGIF(), fitting: (32, 32))
        #expect(scaled.width == 32 && scaled.height == 24 && scaled.frames.count == 2)
    }

    @Test func animatedWebPHasEveryFrame() throws {
        let image = try ImageDecoder.decode(path: MediaFixtures.animatedWebP(), fitting: fullHD)
        #expect(image.frames.count == 2 && image.loops)
        #expect(image.delays == [0.2, 0.2])
        #expect(near(pixel(image, frame: 0, x: 10, y: 10), 0xFFFF_0000))
        #expect(near(pixel(image, frame: 1, x: 10, y: 10), 0xFF00_00FF))
    }

    @Test func anAnimationOverItsByteLimitIsRefused() throws {
        var limits = ImageLimits()
        limits.maximumAnimationBytes = 64 * 48 * 4  // one frame's worth
        let path = try MediaFixtures.animatedGIF()
        let error = refusal { _ = try ImageDecoder.decode(path: path, fitting: fullHD, limits: limits) }
        guard case .unsupported(_, let reason) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(reason.contains("2 frames"))
    }

    @Test func stillWebP() throws {
        let image = try ImageDecoder.decode(path: MediaFixtures.redWebP(), fitting: fullHD)
        #expect(image.width == 64 && image.height == 48 && image.frames.count == 1)
        #expect(pixel(image, x: 5, y: 5) == 0xFFFF_0000)
    }

    @Test func svgIsDrawnAtTheSizeThatFits() throws {
        let image = try ImageDecoder.decode(path: MediaFixtures.redSVG(), fitting: (400, 400))
        #expect(image.width == 400 && image.height == 200)
        #expect(pixel(image, x: 200, y: 100) == 0xFFFF_0000)
    }

    @Test func transparencyIsCompositedOverTheBackground() throws {
        let overBlack = try ImageDecoder.decode(path: MediaFixtures.translucentPNG(), fitting: fullHD)
        #expect(near(pixel(overBlack, x: 3, y: 3), 0xFF80_0000, tolerance: 2))
        let overWhite = try ImageDecoder.decode(
            path: MediaFixtures.translucentPNG(), fitting: fullHD, background: 0xFFFF_FFFF)
        #expect(near(pixel(overWhite, x: 3, y: 3), 0xFFFF_7F7F, tolerance: 2))
    }

    @Test func refusals() throws {
        #expect(throws: MediaError.empty(path: try MediaFixtures.emptyFile())) {
            try ImageDecoder.decode(path: MediaFixtures.emptyFile(), fitting: fullHD)
        }
        #expect(throws: MediaError.notAFile(path: try MediaFixtures.subdirectory())) {
            try ImageDecoder.decode(path: MediaFixtures.subdirectory(), fitting: fullHD)
        }
        #expect(throws: MediaError.notFound(path: "/nonexistent/b.jpg")) {
            try ImageDecoder.decode(path: "/nonexistent/b.jpg", fitting: fullHD)
        }
        let text = try MediaFixtures.textFile()
        let error = refusal { _ = try ImageDecoder.decode(path: text, fitting: fullHD) }
        guard case .unsupported = error else {
            Issue.record("a text file: \(String(describing: error))")
            return
        }
    }

    /// A 50-megapixel JPEG decoded to fit 1920×1080: libjpeg decodes it at an eighth… a half of its size (DCT
    /// scaling), so the full 8000×6250 (150 MB as RGB) never exists. The process's peak resident size is reset
    /// (`clear_refs` 5) before and read after; other tests running meanwhile add a little, nowhere near 150 MB.
    @Test func aFiftyMegapixelJPEGIsScaledWhileDecoding() throws {
        let path = try MediaFixtures.fiftyMegapixelJPEG()
        let before = residentBytes()
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let image = try ImageDecoder.decode(path: path, fitting: fullHD)
        let peakGrowth = peakResidentBytes() - before
        #expect(image.width <= 1920 && image.height <= 1080)
        #expect(image.height == 1080 && abs(Int(image.width) - 1382) <= 1)
        #expect(image.sourceWidth == 8000 && image.sourceHeight == 6250)
        #expect(peakGrowth < 80 << 20, "peak grew by \(peakGrowth >> 20) MiB")
    }
}

/// VmRSS of this process, in bytes.
func residentBytes() -> Int { statusField("VmRSS:") }

/// VmHWM (peak resident size since start or the last `clear_refs` 5) of this process, in bytes.
func peakResidentBytes() -> Int { statusField("VmHWM:") }

private func statusField(_ name: String) -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return 0 }
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
}

/// The ``MediaError`` `body` throws, or nil when it returns (or throws something else).
func refusal(_ body: () throws -> Void) -> MediaError? {
    do {
        try body()
        return nil
    } catch let error as MediaError {
        return error
    } catch {
        return nil
    }
}
