import Testing

@testable import Media

/// Where a video starts when the clock says it is already under way.
@Suite struct VideoStartTests {
    @Test func aVideoThatLoopsWrapsTheOffsetAroundItsLength() {
        #expect(VideoStart(offset: 8, duration: 20, loops: true) == .at(seconds: 8))
        #expect(VideoStart(offset: 47.5, duration: 20, loops: true) == .at(seconds: 7.5))
        // Wrapped to its very beginning: no seek.
        #expect(VideoStart(offset: 40.1, duration: 20, loops: true) == .fromBeginning)
    }

    @Test func aVideoThatEndsStaysOnItsLastFrame() {
        #expect(VideoStart(offset: 8, duration: 20, loops: false) == .at(seconds: 8))
        #expect(VideoStart(offset: 45, duration: 20, loops: false) == .at(seconds: 20 - VideoStart.lastFrameMargin))
    }

    @Test func theFirstQuarterSecondAndBeforeTheStartPlayFromTheBeginning() {
        for offset in [0, 0.2, -3, -.infinity, .nan] {
            #expect(VideoStart(offset: offset, duration: 20, loops: true) == .fromBeginning, "\(offset)")
        }
        #expect(VideoStart(offset: 0.25, duration: 20, loops: true) == .at(seconds: 0.25))
    }

    @Test func anUnknownLengthCannotBePlaced() {
        #expect(VideoStart(offset: 8, duration: nil, loops: true) == .unknownDuration)
        #expect(VideoStart(offset: 8, duration: 0, loops: false) == .unknownDuration)
        #expect(VideoStart(offset: 0.1, duration: nil, loops: true) == .fromBeginning)
    }
}
