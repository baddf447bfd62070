import Testing

@testable import Media

/// Where a video starts when the clock says it is already under way.
@Suite struct VideoStartTests {
    @Test func aVideoThatLoopsWrapsTheOffsetAroundItsLength() {
        #expect(VideoStart(offset: 8, duration: 20, loops: true) == .at(seconds: 8))
        #expect(VideoStart(offset: 47.5, duration: 20, loops: true) == .at(seconds: 7.5))
        // Wrapped to its very beginning: no seek; its first frames, already due, go out at once.
        #expect(VideoStart(offset: 40.1, duration: 20, loops: true) == .fromBeginning(late: 40.1 - 40))
    }

    @Test func aVideoThatEndsStaysOnItsLastFrame() {
        #expect(VideoStart(offset: 8, duration: 20, loops: false) == .at(seconds: 8))
        #expect(VideoStart(offset: 45, duration: 20, loops: false) == .at(seconds: 20 - VideoStart.lastFrameMargin))
    }

    @Test func theFirstQuarterSecondAndBeforeTheStartPlayFromTheBeginningOnTheClock() {
        for offset in [0, 0.2, -3] {
            let start = VideoStart(offset: offset, duration: 20, loops: true)
            #expect(start == .fromBeginning(late: offset), "\(offset)")
            // Its first frame is due when the clock says: `offset` ago, or `-offset` from now.
            #expect(start.late == offset)
        }
        for offset in [-Double.infinity, .nan] {
            #expect(VideoStart(offset: offset, duration: 20, loops: true) == .fromBeginning(late: 0), "\(offset)")
        }
        #expect(VideoStart(offset: 0.25, duration: 20, loops: true) == .at(seconds: 0.25))
        #expect(VideoStart(offset: 0.25, duration: 20, loops: true).late == 0)
    }

    @Test func anUnknownLengthCannotBePlaced() {
        #expect(VideoStart(offset: 8, duration: nil, loops: true) == .unknownDuration)
        #expect(VideoStart(offset: 8, duration: 0, loops: false) == .unknownDuration)
        #expect(VideoStart(offset: 8, duration: nil, loops: true).late == nil)
        #expect(VideoStart(offset: 0.1, duration: nil, loops: true) == .fromBeginning(late: 0.1))
    }
}
