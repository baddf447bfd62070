import Testing

@testable import MultiscreenApp

/// The rules by which a screen whose content waits unshown is judged: asked about a second before it is due, stale
/// when the compositor leaves the question unanswered for that second, recreated only when the compositor answered in
/// time and still showed nothing a grace later.
@Suite struct CompositorProbeTests {
    static let second: UInt64 = 1_000_000_000
    /// A screen whose content waits since 8 s: asked about from 9 s, judged from 10 s.
    static let askFrom = 9 * second
    static let judgeFrom = 10 * second

    func verdict(_ probe: CompositorProbe, at now: UInt64) -> CompositorProbe.Verdict {
        probe.verdict(askFrom: Self.askFrom, judgeFrom: Self.judgeFrom, now: now)
    }

    @Test func anUnansweredQuestionMakesTheScreenStaleWhenItIsDue() {
        let probe = CompositorProbe()
        #expect(verdict(probe, at: Self.askFrom) == .ask)
        probe.recordQuestion(at: Self.askFrom)
        #expect(verdict(probe, at: Self.judgeFrom - 1) == .waitUntil(Self.judgeFrom))
        #expect(verdict(probe, at: Self.judgeFrom) == .notAnswering)
    }

    @Test func aQuestionAskedLaterIsGivenItsFullSecondToBeAnswered() {
        let probe = CompositorProbe()
        let asked = Self.judgeFrom + Self.second / 2
        probe.recordQuestion(at: asked)
        let due = asked + FrameTimeline.unresponsiveAfter
        #expect(verdict(probe, at: due - 1) == .waitUntil(due))
        #expect(verdict(probe, at: due) == .notAnswering)
    }

    @Test func anAnswerInTimeRulesRunningWhenDueAndAGraceLater() {
        let probe = CompositorProbe()
        probe.recordQuestion(at: Self.askFrom)
        #expect(!probe.recordAnswer(at: Self.askFrom + 2_000_000))
        #expect(verdict(probe, at: Self.askFrom + 3_000_000) == .waitUntil(Self.judgeFrom))
        #expect(verdict(probe, at: Self.judgeFrom) == .running)
        // Answered just before the screen is due: the grace after the answer still applies.
        let late = CompositorProbe()
        let asked = Self.judgeFrom - 100_000_000
        late.recordQuestion(at: asked)
        #expect(!late.recordAnswer(at: asked + 50_000_000))
        let due = asked + 50_000_000 + CompositorProbe.grace
        #expect(verdict(late, at: Self.judgeFrom) == .waitUntil(due))
        #expect(verdict(late, at: due) == .running)
    }

    @Test func anAnswerExactlyASecondLateIsInTimeAndOneLaterIsNot() {
        let probe = CompositorProbe()
        probe.recordQuestion(at: Self.askFrom)
        #expect(!probe.recordAnswer(at: Self.askFrom + FrameTimeline.unresponsiveAfter))
        probe.recordQuestion(at: Self.askFrom)
        #expect(probe.recordAnswer(at: Self.askFrom + FrameTimeline.unresponsiveAfter + 1))
    }

    /// The race the hung-compositor test met: the compositor stopped between taking a commit and sending its frame
    /// callback, so the screen waited behind the callback with no sync of its own out. The probe's late answer says
    /// the compositor was stopped, and rules on nothing: the next screen overdue asks again.
    @Test func aLateAnswerRulesOnNothing() {
        let probe = CompositorProbe()
        probe.recordQuestion(at: Self.askFrom)
        #expect(probe.recordAnswer(at: Self.askFrom + 8 * Self.second))
        #expect(verdict(probe, at: 30 * Self.second) == .ask)
    }

    @Test func anAnswerToAQuestionAskedBeforeTheScreenWaitedLongEnoughRulesOnNothing() {
        let probe = CompositorProbe()
        probe.recordQuestion(at: Self.askFrom - 1)
        _ = probe.recordAnswer(at: Self.askFrom + 1_000_000)
        #expect(verdict(probe, at: Self.judgeFrom) == .ask)
    }
}
