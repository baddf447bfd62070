import FrameTiming
import Glibc
import Testing

@testable import Outputs

@Suite struct PresentationTimingTests {
    @Test func joinsTheSplitSecondsAndSequence() {
        let t = PresentationTiming(
            secondsHigh: 0, secondsLow: 12, nanoseconds: 345_678_901, sequenceHigh: 0, sequenceLow: 7)
        #expect(t.seconds == 12)
        #expect(t.timestampNanoseconds == 12_345_678_901)
        #expect(t.sequence == 7)
        // tv_sec_lo wraps at 2^32 s: the high word carries it.
        let wrapped = PresentationTiming(
            secondsHigh: 1, secondsLow: 0, nanoseconds: 5, sequenceHigh: 2, sequenceLow: 0xFFFF_FFFF)
        #expect(wrapped.seconds == 1 << 32)
        #expect(wrapped.timestampNanoseconds == (1 << 32) * 1_000_000_000 + 5)
        #expect(wrapped.sequence == 2 << 32 | 0xFFFF_FFFF)
        let justBefore = PresentationTiming(secondsHigh: 0, secondsLow: 0xFFFF_FFFF, nanoseconds: 999_999_999)
        #expect(wrapped.timestampNanoseconds - justBefore.timestampNanoseconds == 6)
        // Beyond what UInt64 nanoseconds hold: saturates rather than wrapping to a small time.
        let far = PresentationTiming(secondsHigh: 0xFFFF_FFFF, secondsLow: 0, nanoseconds: 0)
        #expect(far.timestampNanoseconds == .max)
    }

    @Test func flagNames() {
        #expect(PresentationFlags(rawValue: 0xF).names == ["vsync", "hw_clock", "hw_completion", "zero_copy"])
        #expect(PresentationFlags(rawValue: 0x5).names == ["vsync", "hw_completion"])
        #expect(PresentationFlags().names.isEmpty)
    }
}

@Suite struct PresentationClockTests {
    /// A fake pair of clocks: CLOCK_MONOTONIC advances 10 ns per read, the other clock is `offset` ahead.
    final class FakeClocks: @unchecked Sendable {
        var monotonic: UInt64 = 1_000_000
        let offset: Int64
        init(offset: Int64) { self.offset = offset }
        func read(_ id: Int32) -> UInt64 {
            if id == 1 {
                monotonic += 10
                return monotonic
            }
            return UInt64(Int64(monotonic) + offset)
        }
    }

    @Test func monotonicIsTheIdentityAndReadsNothing() {
        let clock = PresentationClock(clockID: 1) { _ in
            Issue.record("no clock read for CLOCK_MONOTONIC")
            return 0
        }
        #expect(clock.monotonic(fromPresentationClock: 123_456) == 123_456)
    }

    @Test func shiftsByTheOffsetAtTheMidpoint() {
        // The other clock, read between two monotonic reads 1_000_010 and 1_000_020, stands at 1_000_010 + offset;
        // the midpoint is 1_000_015: off by 5 ns at most, the half-width of the read window.
        for offset: Int64 in [5_000_000_000, -400_000, 0] {
            let fake = FakeClocks(offset: offset)
            let clock = PresentationClock(clockID: 4) { fake.read($0) }
            let stamp = UInt64(1_000_000 + offset)  // 10 ns before the other clock was read
            let converted = clock.monotonic(fromPresentationClock: stamp)
            #expect(converted == 1_000_000 + 5, "offset \(offset)")
        }
    }

    @Test func clampsAtZero() {
        let fake = FakeClocks(offset: 10_000_000)
        let clock = PresentationClock(clockID: 0) { fake.read($0) }
        #expect(clock.monotonic(fromPresentationClock: 5) == 0)
    }

    /// Every clock a compositor may name, read for real: "now" on that clock converts to "now" on CLOCK_MONOTONIC.
    @Test(arguments: [
        CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE,
        CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME, CLOCK_TAI,
    ])
    func everyClockIDConvertsToMonotonicNow(id: Int32) {
        let read: @Sendable (Int32) -> UInt64 = { clock in
            var now = timespec()
            clock_gettime(clockid_t(clock), &now)
            return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
        }
        let clock = PresentationClock(clockID: id, read: read)
        let before = read(CLOCK_MONOTONIC)
        let converted = clock.monotonic(fromPresentationClock: read(id))
        let after = read(CLOCK_MONOTONIC)
        // Coarse clocks tick every few ms (one jiffy): allow their resolution.
        var resolution = timespec()
        clock_getres(clockid_t(id), &resolution)
        let slack = UInt64(resolution.tv_sec) * 1_000_000_000 + UInt64(resolution.tv_nsec) + 1_000_000
        #expect(converted + slack >= before && converted <= after + slack, "\(PresentationClock.name(of: id))")
        #expect(!PresentationClock.name(of: id).hasPrefix("clock "))
    }
}

@Suite struct MissedVblankCounterTests {
    let refresh: UInt64 = 16_000_000

    @Test func countsGapsOfContinuousFrames() {
        var c = MissedVblankCounter()
        #expect(
            c.presented(
                sequence: 100, presentedAt: 1_000_000_000, committedAt: 990_000_000, refreshNanoseconds: refresh) == 0)
        // Committed in time for the next vblank (before previous + refresh) and shown at seq 101: no miss.
        #expect(
            c.presented(
                sequence: 101, presentedAt: 1_016_000_000, committedAt: 1_005_000_000, refreshNanoseconds: refresh) == 0
        )
        // Committed in time, shown three vblanks later: two missed.
        #expect(
            c.presented(
                sequence: 104, presentedAt: 1_064_000_000, committedAt: 1_020_000_000, refreshNanoseconds: refresh) == 2
        )
        #expect(c.missed == 2)
    }

    @Test func idleGapsAreNotMisses() {
        var c = MissedVblankCounter()
        c.presented(sequence: 10, presentedAt: 1_000_000_000, committedAt: 990_000_000, refreshNanoseconds: refresh)
        // Nothing to draw for a second: the next frame, committed long after, lands 60 vblanks on.
        #expect(
            c.presented(
                sequence: 70, presentedAt: 2_000_000_000, committedAt: 1_990_000_000, refreshNanoseconds: refresh) == 0)
        #expect(c.missed == 0)
    }

    @Test func noCounterOrACounterThatGoesBackStartsAfresh() {
        var c = MissedVblankCounter()
        c.presented(sequence: 0, presentedAt: 1_000, committedAt: 0, refreshNanoseconds: refresh)
        #expect(c.presented(sequence: 0, presentedAt: 2_000, committedAt: 1_500, refreshNanoseconds: refresh) == 0)
        c.presented(sequence: 50, presentedAt: 3_000, committedAt: 2_500, refreshNanoseconds: refresh)
        #expect(c.presented(sequence: 40, presentedAt: 4_000, committedAt: 3_500, refreshNanoseconds: refresh) == 0)
        #expect(c.presented(sequence: 43, presentedAt: 5_000, committedAt: 4_500, refreshNanoseconds: refresh) == 2)
        #expect(c.missed == 2)
    }

    @Test func sequenceAcrossTheLowWordWrap() {
        var c = MissedVblankCounter()
        let a = PresentationTiming(
            secondsHigh: 0, secondsLow: 1, nanoseconds: 0, sequenceHigh: 0, sequenceLow: 0xFFFF_FFFF)
        let b = PresentationTiming(secondsHigh: 0, secondsLow: 1, nanoseconds: 0, sequenceHigh: 1, sequenceLow: 1)
        c.presented(sequence: a.sequence, presentedAt: 1_000, committedAt: 0, refreshNanoseconds: refresh)
        #expect(
            c.presented(sequence: b.sequence, presentedAt: 2_000, committedAt: 1_500, refreshNanoseconds: refresh) == 1)
    }
}

@Suite struct PercentileTests {
    @Test func nearestRankOnKnownData() {
        let values = Array(1...100).map(UInt64.init)
        #expect(Percentile.nearestRank(values, percent: 50) == 50)
        #expect(Percentile.nearestRank(values, percent: 99) == 99)
        #expect(Percentile.nearestRank(values, percent: 99.9) == 100)
        #expect(Percentile.nearestRank(values, percent: 100) == 100)
        #expect(Percentile.nearestRank(values, percent: 0) == 1)
        // The textbook example (Wikipedia, "Percentile", nearest-rank): 15 20 35 40 50.
        let five: [UInt64] = [15, 20, 35, 40, 50]
        #expect(Percentile.nearestRank(five, percent: 5) == 15)
        #expect(Percentile.nearestRank(five, percent: 30) == 20)
        #expect(Percentile.nearestRank(five, percent: 40) == 20)
        #expect(Percentile.nearestRank(five, percent: 50) == 35)
        #expect(Percentile.nearestRank(five, percent: 100) == 50)
        #expect(Percentile.nearestRank([UInt64](), percent: 50) == nil)
        #expect(Percentile.nearestRank([7], percent: 99) == 7)
    }

    @Test func windowKeepsTheLastMinute() {
        var w = LatencyWindow()
        let second: UInt64 = 1_000_000_000
        for i in 0..<100 { w.record(UInt64(i + 1) * 1_000_000, at: 10 * second + UInt64(i) * second) }
        // At 100 s + 9 s, the window [49 s, 109 s] holds samples recorded at 49…109 s: i = 39…99.
        let now = 109 * second
        let sorted = w.sortedLatencies(now: now)
        #expect(sorted.count == 61)
        #expect(sorted.first == 40_000_000 && sorted.last == 100_000_000)
        let s = w.summary(now: now)
        #expect(s.count == 61 && s.p50 == 70_000_000 && s.p99 == 100_000_000)
        #expect(w.summary(now: 1_000 * second).count == 0)
    }

    @Test func windowCapacityDropsTheOldest() {
        var w = LatencyWindow()
        for i in 0..<(LatencyWindow.capacity + 5000) { w.record(UInt64(i), at: 1) }
        let sorted = w.sortedLatencies(now: 2)
        #expect(sorted.count == LatencyWindow.capacity)
        #expect(sorted.first == 5000)
    }
}

@Suite struct MessageLatencyTrackerTests {
    func message(_ id: UInt64) -> PendingMessage {
        PendingMessage(id: id, enqueuedAt: 1_000 * id, drainedAt: 1_000 * id + 100)
    }

    func timing(seq: UInt64, at ns: UInt64, refresh: UInt32 = 16_000_000) -> PresentationTiming {
        PresentationTiming(
            secondsHigh: 0, secondsLow: UInt32(ns / 1_000_000_000), nanoseconds: UInt32(ns % 1_000_000_000),
            refreshNanoseconds: refresh, sequenceHigh: 0, sequenceLow: UInt32(seq), flags: [.vsync])
    }

    @Test func presentedFrameReportsItsMessages() {
        var t = MessageLatencyTracker()
        _ = t.messageArrived(message(1))
        _ = t.messageArrived(message(2))
        #expect(t.committed(frame: 1, at: 5_000, presentationClock: 5_000, withFeedback: true).isEmpty)
        #expect(t.waitingCount == 0)
        let report = t.presented(frame: 1, presentedAt: 9_000, timing: timing(seq: 5, at: 9_000))
        #expect(report?.source == .presented)
        #expect(report?.messages.map(\.id) == [1, 2])
        #expect(report?.latencies == [8_000, 7_000])
        #expect(report?.sequence == 5 && report?.flags == [.vsync])
        // Answered once only.
        #expect(t.presented(frame: 1, presentedAt: 9_000, timing: timing(seq: 5, at: 9_000)) == nil)
    }

    @Test func framesWithoutMessagesReportNothingButCountVblanks() {
        var t = MessageLatencyTracker()
        _ = t.committed(frame: 1, at: 0, presentationClock: 0, withFeedback: true)
        #expect(t.presented(frame: 1, presentedAt: 0, timing: timing(seq: 1, at: 16_000_000)) == nil)
        _ = t.committed(frame: 2, at: 0, presentationClock: 20_000_000, withFeedback: true)
        #expect(t.presented(frame: 2, presentedAt: 0, timing: timing(seq: 4, at: 64_000_000)) == nil)
        #expect(t.vblanks.missed == 2)
    }

    @Test func discardedOnAPresentingCompositorMovesMessagesToTheNextFrame() {
        var t = MessageLatencyTracker()
        _ = t.committed(frame: 1, at: 0, presentationClock: 0, withFeedback: true)
        _ = t.presented(frame: 1, presentedAt: 10, timing: timing(seq: 1, at: 10))
        _ = t.messageArrived(message(3))
        _ = t.committed(frame: 2, at: 3_100, presentationClock: 3_100, withFeedback: true)
        _ = t.messageArrived(message(4))
        _ = t.committed(frame: 3, at: 4_200, presentationClock: 4_200, withFeedback: true)
        let moved = t.discarded(frame: 2)
        #expect(moved.report == nil && !moved.redraw)
        let report = t.presented(frame: 3, presentedAt: 20_000, timing: timing(seq: 2, at: 20_000))
        #expect(report?.messages.map(\.id) == [3, 4])
        // The last frame discarded with none after it: its messages wait for the next commit, which is asked for.
        _ = t.messageArrived(message(5))
        _ = t.committed(frame: 4, at: 6_000, presentationClock: 6_000, withFeedback: true)
        let waiting = t.discarded(frame: 4)
        #expect(waiting.redraw && t.waitingCount == 1)
        _ = t.committed(frame: 5, at: 7_000, presentationClock: 7_000, withFeedback: true)
        #expect(
            t.presented(frame: 5, presentedAt: 30_000, timing: timing(seq: 3, at: 30_000))?.messages.map(\.id) == [5])
    }

    @Test func frameDoneFallbackWhereNoPresentedComes() {
        // sway 1.7 headless: the frame callback, and feedback answered late or never.
        var t = MessageLatencyTracker()
        _ = t.messageArrived(message(1))
        _ = t.committed(frame: 1, at: 2_000, presentationClock: 2_000, withFeedback: true)
        let first = t.frameDone(frame: 1, at: 7_000)
        #expect(first?.source == .frameDone && first?.shownAt == 7_000)
        #expect(t.discarded(frame: 1).report == nil, "answered once only")
        // `discarded` before the callback: the callback still decides.
        _ = t.messageArrived(message(2))
        _ = t.committed(frame: 2, at: 8_000, presentationClock: 8_000, withFeedback: true)
        #expect(t.discarded(frame: 2).report == nil)
        #expect(t.frameDone(frame: 2, at: 9_000)?.source == .frameDone)
        // No feedback object at all (none offered, or too many outstanding): the frame callback decides.
        _ = t.messageArrived(message(3))
        _ = t.committed(frame: 3, at: 10_000, presentationClock: 10_000, withFeedback: false)
        #expect(t.frameDone(frame: 3, at: 11_000)?.latencies == [8_000])
    }

    @Test func onAPresentingCompositorFrameDoneWaitsForFeedbackUnlessThereIsNone() {
        var t = MessageLatencyTracker()
        _ = t.committed(frame: 1, at: 0, presentationClock: 0, withFeedback: true)
        _ = t.presented(frame: 1, presentedAt: 10, timing: timing(seq: 1, at: 10))
        _ = t.messageArrived(message(1))
        _ = t.committed(frame: 2, at: 2_000, presentationClock: 2_000, withFeedback: true)
        #expect(t.frameDone(frame: 2, at: 3_000) == nil, "weston sends the callback before presented")
        #expect(t.presented(frame: 2, presentedAt: 9_000, timing: timing(seq: 2, at: 9_000))?.source == .presented)
        _ = t.messageArrived(message(2))
        _ = t.committed(frame: 3, at: 10_000, presentationClock: 10_000, withFeedback: false)
        #expect(t.frameDone(frame: 3, at: 12_000)?.source == .frameDone)
    }

    @Test func tearDownLosesWhatWasNotShown() {
        var t = MessageLatencyTracker()
        _ = t.messageArrived(message(1))
        _ = t.committed(frame: 1, at: 2_000, presentationClock: 2_000, withFeedback: true)
        _ = t.messageArrived(message(2))
        let lost = t.tornDown()
        #expect(lost.map(\.source) == [.lost, .lost])
        #expect(lost.flatMap(\.messages).map(\.id) == [1, 2])
        #expect(lost.allSatisfy { $0.latencies.isEmpty })
        #expect(t.tornDown().isEmpty)
    }

    @Test func aScreenThatNeverDrawsKeepsABoundedBacklog() {
        var t = MessageLatencyTracker()
        var lost: [UInt64] = []
        for id in 1...UInt64(MessageLatencyTracker.maximumWaiting + 3) {
            if let report = t.messageArrived(message(id)) {
                #expect(report.source == .lost)
                lost += report.messages.map(\.id)
            }
        }
        #expect(lost == [1, 2, 3] && t.waitingCount == MessageLatencyTracker.maximumWaiting)
        t.forgetWaiting()
        #expect(t.waitingCount == 0 && t.tornDown().isEmpty)
    }

    @Test func evictsFramesThatNeverResolve() {
        var t = MessageLatencyTracker()
        _ = t.messageArrived(message(1))
        var lost: [FrameLatencyReport] = []
        for frame in 1...UInt64(MessageLatencyTracker.maximumFrames + 1) {
            lost += t.committed(frame: frame, at: frame, presentationClock: frame, withFeedback: true)
        }
        #expect(lost.count == 1 && lost.first?.source == .lost && lost.first?.messages.map(\.id) == [1])
    }

    @Test func screenLatencyFigures() {
        var s = ScreenLatency()
        var r = FrameLatencyReport(
            frame: 1, source: .frameDone, committedAt: 0, shownAt: 10_000_000, messages: [message(1)])
        s.record(r, missedVblanks: 0)
        #expect(s.source == .frameDone)
        r.source = .presented
        r.messages = [message(2), message(3)]
        s.record(r, missedVblanks: 3)
        #expect(s.source == .presented && s.presented == 2 && s.frameDone == 1 && s.missedVblanks == 3)
        let lost = FrameLatencyReport(frame: 2, source: .lost, committedAt: 0, shownAt: nil, messages: [message(4)])
        s.record(lost, missedVblanks: 3)
        #expect(s.lost == 1 && s.source == .presented)
        #expect(s.window.summary(now: 10_000_000).count == 3)
    }
}

@Suite struct PanelTextTests {
    @Test func showsTheLastMinuteAndNamesTheFallback() {
        var s = ScreenLatency()
        #expect(s.panelText(now: 0) == nil, "nothing before the first message")
        let message = PendingMessage(id: 1, enqueuedAt: 0, drainedAt: 0)
        s.record(
            FrameLatencyReport(frame: 1, source: .frameDone, committedAt: 0, shownAt: 14_240_000, messages: [message]),
            missedVblanks: 0)
        #expect(s.panelText(now: 14_240_000) == "p50 14.2 p99 14.2 ms (frame cb)")
        s.record(
            FrameLatencyReport(frame: 2, source: .presented, committedAt: 0, shownAt: 29_560_000, messages: [message]),
            missedVblanks: 2)
        #expect(s.panelText(now: 29_560_000) == "p50 14.2 p99 29.6 ms · 2 missed")
        #expect(s.panelText(now: 120_000_000_000) == nil, "a minute later the window is empty")
    }
}

@Suite struct DeadlinePredictorTests {
    let ms: UInt64 = 1_000_000

    @Test func nothingKnownMeansNow() {
        var p = DeadlinePredictor()
        #expect(p.drawStart(now: 5 * ms) == 5 * ms)
        // A presented time without a refresh period (unknown): still now.
        p.presented(at: 100 * ms, committedAt: 95 * ms, refreshNanoseconds: 0)
        #expect(p.drawStart(now: 101 * ms) == 101 * ms)
    }

    @Test func drawsAsLateAsTheEarliestReachablePresentationAllows() {
        var p = DeadlinePredictor()
        for at: UInt64 in [36, 52, 84] {
            p.presented(at: at * ms, committedAt: at * ms - 8 * ms, refreshNanoseconds: 16 * ms)
        }
        // Presented at 100 ms, refresh 16 ms, commits need 5 ms before presentation, drawing takes 3 ms:
        // needed = 5 + 3 + 1 (margin) = 9 ms.
        p.presented(at: 100 * ms, committedAt: 95 * ms, refreshNanoseconds: 16 * ms)
        p.drew(3 * ms)
        // Changed at 101 ms: the 116 ms presentation is reachable (101 + 9 ≤ 116): start at 107 ms.
        #expect(p.drawStart(now: 101 * ms) == 107 * ms)
        // Changed at 110 ms: 116 is not (110 + 9 > 116), 132 is: start at 123 ms.
        #expect(p.drawStart(now: 110 * ms) == 123 * ms)
        // Exactly on the edge: start now.
        #expect(p.drawStart(now: 107 * ms) == 107 * ms)
    }

    @Test func learnsTheShortestLeadAndTheLongestDraw() {
        var p = DeadlinePredictor()
        for at: UInt64 in [70, 80, 90] {
            p.presented(at: at * ms, committedAt: at * ms - 20 * ms, refreshNanoseconds: 10 * ms)
        }
        p.presented(at: 100 * ms, committedAt: 80 * ms, refreshNanoseconds: 10 * ms)
        p.presented(at: 110 * ms, committedAt: 104 * ms, refreshNanoseconds: 10 * ms)
        p.drew(1 * ms)
        p.drew(2 * ms)
        // needed = 6 + 2 + 1 = 9 ms; changed at 111: 111 + 9 = 120 reachable, start at 111.
        #expect(p.drawStart(now: 111 * ms) == 111 * ms)
        // Changed at 112: 121 > 120, so the 130 presentation, start at 121.
        #expect(p.drawStart(now: 112 * ms) == 121 * ms)
    }

    @Test func presentationsOffTheGridMeanNow() {
        // weston 10 headless: refresh 16.67 ms reported, presentations 25.8 ms apart.
        var p = DeadlinePredictor()
        var at: UInt64 = 100 * ms
        for _ in 0..<5 {
            p.presented(at: at, committedAt: at - 25 * ms, refreshNanoseconds: 16_666_666)
            at += 25_800_000
        }
        #expect(!p.followsTheGrid)
        #expect(p.drawStart(now: at) == at)
        // On the grid (within 1 ms), the same history is trusted.
        var q = DeadlinePredictor()
        for k: UInt64 in 0..<5 {
            q.presented(
                at: 100 * ms + k * 16_666_666 + 300_000 * (k % 2), committedAt: 90 * ms + k * 16_666_666,
                refreshNanoseconds: 16_666_666)
        }
        #expect(q.followsTheGrid)
    }

    @Test func schedulerPacing() {
        var s = FrameScheduler()
        s.didRender()
        s.invalidate()
        #expect(!s.shouldRender(.frame), "frame pacing waits for the callback")
        #expect(s.shouldRender(.immediate) && s.shouldRender(.deadline))
        s.frameDone()
        s.didRender()
        #expect(!s.shouldRender(.immediate), "nothing new: no frame in any mode")
    }
}
