import Testing

@testable import MultiscreenApp

/// The rules by which a screen whose content waits behind a frame callback is judged: only a compositor that
/// answered soon, and still showed nothing a grace later, has stopped presenting the window.
@Suite struct CompositorProbeTests {
    static let second: UInt64 = 1_000_000_000

    @Test func aScreenOverdueAsksAndAnUnansweredQuestionMeansTheCompositorDoesNotAnswer() {
        let probe = CompositorProbe()
        #expect(probe.verdict(overdueSince: 10 * Self.second, now: 10 * Self.second) == .ask)
        probe.recordQuestion(at: 10 * Self.second)
        let due = 10 * Self.second + FrameTimeline.unresponsiveAfter
        #expect(probe.verdict(overdueSince: 10 * Self.second, now: 10 * Self.second + 1) == .waitUntil(due))
        #expect(probe.verdict(overdueSince: 10 * Self.second, now: due) == .notAnswering)
    }

    @Test func aSoonAnswerIsJudgedRunningOnlyAGraceLater() {
        let probe = CompositorProbe()
        probe.recordQuestion(at: 10 * Self.second)
        #expect(!probe.recordAnswer(at: 10 * Self.second + 2_000_000))
        let due = 10 * Self.second + 2_000_000 + CompositorProbe.grace
        #expect(probe.verdict(overdueSince: 10 * Self.second, now: 10 * Self.second + 3_000_000) == .waitUntil(due))
        #expect(probe.verdict(overdueSince: 10 * Self.second, now: due) == .running)
    }

    /// The race the hung-compositor test met: the compositor stopped between taking a commit and sending its frame
    /// callback, so the screen waited behind the callback with no sync of its own out. Its late answer says so.
    @Test func aLateAnswerMeansTheCompositorWasStoppedAndJudgesNothing() {
        let probe = CompositorProbe()
        probe.recordQuestion(at: 10 * Self.second)
        #expect(probe.recordAnswer(at: 18 * Self.second))
        #expect(probe.verdict(overdueSince: 10 * Self.second, now: 30 * Self.second) == .ask)
    }

    @Test func anAnswerToAQuestionAskedBeforeTheContentWasOverdueDecidesNothing() {
        let probe = CompositorProbe()
        probe.recordQuestion(at: 10 * Self.second)
        _ = probe.recordAnswer(at: 10 * Self.second + 1_000_000)
        #expect(probe.verdict(overdueSince: 11 * Self.second, now: 12 * Self.second) == .ask)
    }
}
