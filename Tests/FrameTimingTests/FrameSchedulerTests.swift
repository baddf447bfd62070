import FrameTiming
import Testing

@testable import Outputs

@Suite struct FrameSchedulerTests {
    @Test func rendersOnceThenWaitsForTheFrameCallback() {
        var s = FrameScheduler()
        #expect(s.shouldRender, "a new screen draws its first frame")
        s.didRender()
        #expect(!s.shouldRender)
        s.invalidate()
        s.invalidate()
        #expect(!s.shouldRender, "changes while a frame is in flight wait for its callback")
        s.frameDone()
        #expect(s.shouldRender, "…and then coalesce into one frame")
        s.didRender()
        s.frameDone()
        #expect(!s.shouldRender, "nothing changed: no frame (idle costs nothing)")
    }

    /// A compositor that has not processed the last commit (stopped, stalled) gets nothing more, under every pacing
    /// and not even for a configure, until the sync sent after that commit comes back.
    @Test func nothingIsDrawnUntilTheCompositorCaughtUp() {
        for pacing in FramePacing.allCases {
            var s = FrameScheduler()
            s.didRender()
            s.awaitCompositor()
            s.frameDone()
            s.invalidate()
            #expect(!s.shouldRender(pacing), "\(pacing)")
            s.reset()
            #expect(!s.mayCommit && !s.shouldRender(pacing), "\(pacing): a configure waits too")
            s.compositorCaughtUp()
            #expect(s.mayCommit && s.shouldRender(pacing), "\(pacing)")
        }
    }

    @Test func resetDrawsImmediately() {
        var s = FrameScheduler()
        s.didRender()
        s.reset()
        #expect(s.shouldRender)
    }
}

@Suite struct FrameStatisticsTests {
    @Test func countsAndRollingMedian() {
        var stats = FrameStatistics()
        stats.recordCommit(withFeedback: true)
        stats.recordCommit(withFeedback: false)
        stats.recordPresented(latencyNanoseconds: 10)
        stats.recordPresented(latencyNanoseconds: 30)
        stats.recordFrameDone(latencyNanoseconds: 20)
        stats.recordDiscarded()
        #expect(stats.committed == 2 && stats.feedbackSkipped == 1)
        #expect(stats.presented == 2 && stats.frameDoneFallbacks == 1 && stats.discarded == 1)
        #expect(stats.rollingMedianNanoseconds == 20)
        #expect(stats.lastLatencyNanoseconds == 20)
    }

    @Test func windowIsBounded() {
        var stats = FrameStatistics()
        for i in 0..<(FrameStatistics.window * 3) { stats.recordPresented(latencyNanoseconds: UInt64(i)) }
        #expect(stats.recentLatencies.count == FrameStatistics.window)
        #expect(stats.recentLatencies.last == UInt64(FrameStatistics.window * 3 - 1))
    }
}
