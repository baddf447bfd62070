import Testing

@testable import Media

@Suite struct MediaProbeTests {
    @Test func imagesByTheirBytes() throws {
        for path in [
            try MediaFixtures.redPNG(), try MediaFixtures.gradientJPEG(), try MediaFixtures.animatedGIF(),
            try MediaFixtures.redWebP(), try MediaFixtures.redSVG(),
        ] {
            #expect(try MediaProbe.kind(ofFileAt: path) == .image, "\(path)")
        }
    }

    @Test func videosByTheirBytes() throws {
        #expect(try MediaProbe.kind(ofFileAt: MediaFixtures.h264(seconds: 1)) == .video)
        #expect(try MediaProbe.kind(ofFileAt: MediaFixtures.vp9()) == .video)
    }

    @Test func notTheExtension() throws {
        // A PNG named .png that is really a WebM is a video.
        let webm = try MediaFixtures.file("video-named.png") { path in
            try MediaFixtures.run("/bin/cp", [try MediaFixtures.vp9(), path])
        }
        #expect(try MediaProbe.kind(ofFileAt: webm) == .video)
    }

    @Test func refusals() throws {
        #expect(throws: MediaError.empty(path: try MediaFixtures.emptyFile())) {
            try MediaProbe.kind(ofFileAt: MediaFixtures.emptyFile())
        }
        #expect(throws: MediaError.notAFile(path: try MediaFixtures.subdirectory())) {
            try MediaProbe.kind(ofFileAt: MediaFixtures.subdirectory())
        }
        #expect(throws: MediaError.notAFile(path: "/dev/null")) { try MediaProbe.kind(ofFileAt: "/dev/null") }
        #expect(throws: MediaError.notFound(path: "/nonexistent/a.png")) {
            try MediaProbe.kind(ofFileAt: "/nonexistent/a.png")
        }
        let text = try MediaFixtures.textFile()
        guard case .unsupported = refusal({ _ = try MediaProbe.kind(ofFileAt: text) }) else {
            Issue.record("a text file is neither an image nor a video")
            return
        }
    }

    @Test func isoBaseMediaStillImagesAreImages() {
        let avif: [UInt8] = [0, 0, 0, 0x1C] + Array("ftypavif".utf8) + [0, 0, 0, 0]
        let mp4: [UInt8] = [0, 0, 0, 0x1C] + Array("ftypisom".utf8) + [0, 0, 0, 0]
        #expect(MediaProbe.kind(of: avif) == .image)
        #expect(MediaProbe.kind(of: mp4) == .video)
        #expect(MediaProbe.kind(of: Array("\u{FEFF}  <svg width='1'/>".utf8)) == .image)
        #expect(MediaProbe.kind(of: Array("<?xml version='1.0'?><html/>".utf8)) == nil)
    }

    @Test func descriptionsEscapeControlCharacters() {
        let error = MediaError.notFound(path: "/tmp/a\nb\u{1B}[31m\\")
        #expect(error.description == "no such file: /tmp/a\\nb\\u{1B}[31m\\\\")
        #expect(!error.description.contains { $0.isNewline })
        #expect(
            MediaError.tooLarge(width: 100_000, height: 100_000, limit: 100_000_000).description
                == "image too large: 100000×100000 pixels is more than the limit of 100000000 pixels")
    }
}
