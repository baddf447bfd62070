import Foundation
import Testing

@testable import Media

/// What `screen.capture` writes: a PNG file, or one in memory for a reply, read back by the image decoder.
@Suite struct PNGFileTests {
    /// XRGB8888 as wl_shm lays it out: B, G, R, unused.
    static func pixels(width: Int, height: Int, _ colour: (UInt8, UInt8, UInt8)) -> [UInt8] {
        (0..<(width * height)).flatMap { _ in [colour.2, colour.1, colour.0, 0] }
    }

    private func decoded(_ path: String) throws -> (width: Int32, height: Int32, pixel: UInt32) {
        let image = try ImageDecoder.decode(path: path, fitting: (1920, 1080))
        return (image.width, image.height, image.frames[0].words[0])
    }

    @Test func aFileAndAnEncodingReadBackAsThePicture() throws {
        let pixels = Self.pixels(width: 64, height: 48, (0x25, 0x63, 0xEB))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("png-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(PNGFile.write(xrgb: pixels, width: 64, height: 48, to: directory + "/a.png") == nil)
        let png = try PNGFile.encode(xrgb: pixels, width: 64, height: 48, limit: 1 << 20).get()
        try Data(png).write(to: URL(fileURLWithPath: directory + "/b.png"))
        for name in ["a", "b"] {
            let read = try decoded(directory + "/\(name).png")
            #expect(read.width == 64 && read.height == 48)
            #expect(read.pixel & 0x00FF_FFFF == 0x2563EB, "\(name): \(String(read.pixel, radix: 16))")
        }
    }

    /// A picture whose PNG is over the limit is refused with its size, whether the limit or the worst case is less.
    @Test func aPNGOverTheLimitIsRefused() {
        var noise = SystemRandomNumberGenerator()
        let pixels = (0..<(256 * 256 * 4)).map { _ in UInt8.random(in: 0...255, using: &noise) }
        guard case .failure(let failure) = PNGFile.encode(xrgb: pixels, width: 256, height: 256, limit: 10_000) else {
            Issue.record("encoded within 10 000 bytes")
            return
        }
        #expect(failure.description.contains("more than the 10000 a reply carries: give a path"), "\(failure)")
    }
}
