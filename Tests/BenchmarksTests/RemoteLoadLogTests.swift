import Testing

@testable import Benchmarks

/// `remote-load` reads each message's latency and its split from the kiosk's log lines.
@Suite struct RemoteLoadLogTests {
    static let log = """
        2026-11-23T03:20:40+0000 debug multiscreen: latency: message #7 on HEADLESS-1 committed at 123 ns, \
        enqueue→commit 12.50 ms, drain→commit 12.00 ms, queued 0.50 ms, behind frame 3.25 ms, \
        behind thread 4.00 ms, drawn 4.75 ms
        2026-11-23T03:20:40+0000 debug multiscreen: latency: message #7 on HEADLESS-2 committed at 120 ns, \
        enqueue→commit 9.10 ms, drain→commit 8.60 ms, queued 0.50 ms, behind frame 0.00 ms, behind thread 0.09 ms, \
        drawn 8.51 ms
        2026-11-23T03:20:40+0000 info multiscreen: message #8 for every screen: probe 8
        """

    @Test func splitsEachMessagesWaitPerScreen() {
        let waits = DisplayBenchmarks.probeWaits(in: Self.log)
        #expect(waits["HEADLESS-1"]?[7] == [.queued: 0.5, .behindFrame: 3.25, .behindThread: 4.0, .drawn: 4.75])
        #expect(waits["HEADLESS-2"]?[7]?[.drawn] == 8.51)
        #expect(waits["HEADLESS-1"]?[8] == nil)
        #expect(DisplayBenchmarks.enqueueToCommit(in: Self.log)["HEADLESS-1"]?[7] == 12.5)
        // `bench messages` reads the same line's first two figures.
        let both = DisplayBenchmarks.latencies(in: Self.log, id: 7, screen: "HEADLESS-2")
        #expect(both?.enqueue == 9.1 && both?.drain == 8.6)
    }

    @Test func committedFramesFromAStatusReply() {
        let reply =
            #"{"method":"status","result":{"screens":[{"name":"HEADLESS-1","frames":{"committed":41}},"#
            + #"{"name":"HEADLESS-2","frames":{"committed":7}}]}}"#
        #expect(DisplayBenchmarks.committedFrames(reply) == ["HEADLESS-1": 41, "HEADLESS-2": 7])
    }
}
