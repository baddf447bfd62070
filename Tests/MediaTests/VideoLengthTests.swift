import Foundation
import Testing

@testable import Media

/// A playlist's video without seconds plays its own length: the discoverer's reading of files ffmpeg made.
@Suite struct VideoLengthTests {
    @Test func anH264VideoIsAsLongAsItWasMade() throws {
        let length = try VideoLength.measure(path: try MediaFixtures.h264(seconds: 3))
        #expect(abs(length - 3) < 0.1, "measured \(length) s")
    }

    @Test func aVP9WebMHasItsLengthToo() throws {
        let length = try VideoLength.measure(path: try MediaFixtures.vp9())
        #expect(abs(length - 1) < 0.1, "measured \(length) s")
    }

    @Test func aPictureHasNoLength() throws {
        #expect {
            try VideoLength.measure(path: try MediaFixtures.redPNG())
        } throws: { error in
            guard case MediaError.unsupported(_, let reason) = error else { return false }
            return reason.contains("image")
        }
    }

    @Test func aMissingEmptyOrBrokenFileIsRefusedAsSuch() throws {
        #expect(throws: MediaError.notFound(path: "/nonexistent/promo.mp4")) {
            try VideoLength.measure(path: "/nonexistent/promo.mp4")
        }
        let empty = try MediaFixtures.emptyFile()
        #expect(throws: MediaError.empty(path: empty)) { try VideoLength.measure(path: empty) }
        #expect(throws: MediaError.self) { try VideoLength.measure(path: try MediaFixtures.textFile()) }
    }
}
