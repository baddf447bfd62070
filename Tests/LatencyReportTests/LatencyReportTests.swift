import Foundation
import Messaging
import Testing

@testable import LatencyReport

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite struct DistributionTests {
    /// HdrHistogram with three significant digits: each figure within 0.1 % of the exact nearest-rank value.
    @Test func percentilesOfKnownData() throws {
        // 1…10_000 µs in ns: p50 = 5 ms, p90 = 9 ms, p99 = 9.9 ms, p99.9 = 9.99 ms, max 10 ms.
        let values = (1...10_000).map { UInt64($0) * 1_000 }
        let d = try #require(Distribution(values.shuffled()))
        func close(_ actual: UInt64, _ exact: UInt64) -> Bool {
            abs(Double(actual) - Double(exact)) <= Double(exact) * 0.001
        }
        #expect(d.count == 10_000)
        #expect(close(d.p50, 5_000_000), "\(d.p50)")
        #expect(close(d.p90, 9_000_000), "\(d.p90)")
        #expect(close(d.p99, 9_900_000), "\(d.p99)")
        #expect(close(d.p999, 9_990_000), "\(d.p999)")
        #expect(close(d.max, 10_000_000), "\(d.max)")
        #expect(abs(d.mean - 5_000_500) < 5_000)
        #expect(Distribution([]) == nil)
        // A single value is every percentile.
        let one = try #require(Distribution([16_666_667]))
        #expect(close(one.p50, 16_666_667) && one.p50 == one.p999 && one.p999 == one.max)
    }

    @Test func jsonIsInMilliseconds() throws {
        let d = try #require(Distribution([2_000_000, 4_000_000]))
        let json = d.json.objectValue
        #expect(json["count"] == .integer(2))
        #expect(json["p50"] == .number(2.0))
        #expect(Set(json.keys) == ["count", "p50", "p90", "p99", "p99_9", "max", "mean"])
    }
}

@Suite struct LatencyReportTests {
    func event(screen: String, source: String, shownAt: Int?, ids: [Int]) -> Event {
        Event(
            name: "frame.shown",
            params: [
                "screen": .string(screen), "source": .string(source), "frame": .integer(7),
                "committedAt": .integer(5_000_000), "shownAt": shownAt.map { .integer($0) } ?? .null,
                "seq": .integer(42), "refreshNs": .integer(16_666_666), "flags": .array([.string("vsync")]),
                "missedVblanks": .integer(0), "clock": .string("CLOCK_MONOTONIC_RAW"),
                "messages": .array(
                    ids.map {
                        .object([
                            "id": .integer($0), "enqueuedAt": .integer(1_000_000 * $0),
                            "drainedAt": .integer(1_000_000 * $0 + 100_000),
                        ])
                    }),
            ])
    }

    @Test func parsesFrameShownEvents() throws {
        let (screen, messages) = try #require(
            ShownMessage.parse(event(screen: "headless", source: "presented", shownAt: 9_000_000, ids: [1, 2])))
        #expect(screen == "headless")
        #expect(messages.map(\.id) == [1, 2])
        #expect(messages[0].total == 8_000_000 && messages[0].enqueueToDrain == 100_000)
        #expect(messages[0].drainToCommit == 3_900_000 && messages[0].commitToShown == 4_000_000)
        #expect(
            messages[0].sequence == 42 && messages[0].flags == ["vsync"] && messages[0].clock == "CLOCK_MONOTONIC_RAW")
        let lost = try #require(ShownMessage.parse(event(screen: "a", source: "lost", shownAt: nil, ids: [3])))
        #expect(lost.messages[0].total == nil && lost.messages[0].commitToShown == nil)
        #expect(ShownMessage.parse(Event.dropped(count: 3)) == nil)
    }

    func output(name: String = "HEADLESS-1", shown: [(UInt64, String)], expected: [UInt64]) -> OutputReport {
        var map: [UInt64: ShownMessage] = [:]
        for (id, source) in shown {
            map[id] = ShownMessage(
                source: source, id: id, enqueuedAt: 1_000 * id, drainedAt: 1_000 * id + 10,
                committedAt: 1_000 * id + 20, shownAt: source == "lost" ? nil : 1_000 * id + 20_000_000,
                refreshNanoseconds: source == "presented" ? 16_666_666 : 0,
                flags: source == "presented" ? ["vsync"] : [])
        }
        return OutputReport(
            name: name, modeRefreshNanoseconds: 16_666_667, expected: expected, shown: map,
            frames: FrameCounts(committed: 3, presented: 2, discarded: 1, missedVblanks: 1))
    }

    @Test func accountingAndSources() {
        let complete = output(shown: [(1, "presented"), (2, "presented"), (3, "lost")], expected: [1, 2, 3])
        #expect(complete.unaccounted.isEmpty && complete.presentedAvailable && complete.source == "presented")
        #expect(complete.refreshNanoseconds == 16_666_666, "presented's refresh wins over the mode's")
        #expect(complete.messageToShown?.count == 2, "lost messages have no latency")
        let partial = output(shown: [(1, "frameDone")], expected: [1, 2])
        #expect(partial.unaccounted == [2] && !partial.presentedAvailable && partial.source == "frameDone")
        #expect(partial.refreshNanoseconds == 16_666_667)
        #expect(output(shown: [(1, "frameDone"), (2, "presented")], expected: [1, 2]).source == "mixed")
        #expect(output(shown: [], expected: [1]).source == "none")

        var run = LatencyRun(compositor: "sway", sent: [1, 2], outputs: [complete, partial])
        #expect(!run.everyMessageAccountedFor)
        run.outputs = [complete]
        #expect(run.everyMessageAccountedFor)
    }

    /// The keys docs/latency.md documents: a script relies on them.
    @Test func documentKeysAreStable() throws {
        var run = LatencyRun(
            compositor: "weston", sent: [1, 2],
            outputs: [output(shown: [(1, "presented"), (2, "presented")], expected: [1, 2])])
        run.notes = ["a note"]
        let text = run.json.serialized
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(
            Set(document.keys) == [
                "schema", "compositor", "pacing", "flash", "backToBack", "messages", "outputs", "notes", "reference",
            ])
        #expect(document["reference"] is NSNull, "null when --reference was not given")
        #expect(document["schema"] as? String == "multiscreen-latency/1")
        let output = try #require((document["outputs"] as? [[String: Any]])?.first)
        #expect(
            Set(output.keys) == [
                "name", "refreshNs", "presentedAvailable", "source", "clock", "flags", "messages", "messageToShownMs",
                "enqueueToDrainMs", "drainToCommitMs", "commitToShownMs", "samples", "frames", "missedVblanks",
            ])
        let sample = try #require((output["samples"] as? [[String: Any]])?.first)
        #expect(
            Set(sample.keys) == [
                "id", "source", "messageToShownNs", "enqueueToDrainNs", "drainToCommitNs", "commitToShownNs", "seq",
                "frame", "patch", "shownAtNs",
            ])
        #expect(sample["messageToShownNs"] as? Int == 20_000_000)
        #expect(run.summary.contains("HEADLESS-1 (refresh 16.67 ms): message → presented"))
        #expect(run.summary.contains("p50 20.00"))
    }

    @Test func svgIsWellFormedAndMarksTheVblankGrid() throws {
        let report = output(
            name: "A&B <1>", shown: [(1, "presented"), (2, "frameDone"), (3, "lost")], expected: [1, 2, 3])
        let svg = LatencyPlot.svg(report)
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(svg.contains("A&amp;B &lt;1&gt;"))
        #expect(svg.contains("stroke-dasharray"), "vblank grid")
        #expect(svg.components(separatedBy: "<circle").count - 1 == 2, "one point per shown message")
        #expect(svg.contains("×"), "the lost message is marked")
    }

    @Test func tickSteps() {
        #expect(LatencyPlot.tickStep(47.6) == 10)
        #expect(LatencyPlot.tickStep(8) == 1)
        #expect(LatencyPlot.tickStep(160) == 20)
    }
}

@Suite struct ReferenceRunTests {
    @Test func parsesBothModesAndSkipsTheFirstFrame() {
        let low = """
                 1: c2p   31 ms, p2p     0 us, t2p  31055 us, [____] seq 0
                 2: c2p   27 ms, p2p 26255 us, t2p  26131 us, [____] seq 0
                 3: c2p   25 ms, p2p 25801 us, t2p  25724 us, [V__Z] seq 1234
            presentation-shm: something else
            """
        let p = ReferenceRun.parse(mode: "-p", output: low)
        #expect(p.commitToPresent == [27_000_000, 25_000_000])
        #expect(p.presentToPresent == [26_255_000, 25_801_000])
        let feedback = """
                 1: f2c 1611354 ms, c2p 40 ms, f2p 1611394 ms, p2p     0 us, t2p  39967, [____], seq 0
                 2: f2c 10 ms, c2p 41 ms, f2p 51 ms, p2p 25545 us, t2p  41543, [____], seq 0
            """
        let f = ReferenceRun.parse(mode: "-f", output: feedback)
        #expect(f.commitToPresent == [41_000_000] && f.presentToPresent == [25_545_000])
    }

    @Test func ratioOfCommitToPresentedMedians() {
        let ours = OutputReport(
            name: "headless", modeRefreshNanoseconds: 16_666_667, expected: [1],
            shown: [
                1: ShownMessage(
                    source: "presented", id: 1, enqueuedAt: 0, drainedAt: 0, committedAt: 1_000_000,
                    shownAt: 28_500_000)
            ])
        var run = LatencyRun(compositor: "weston", sent: [1], outputs: [ours])
        #expect(run.referenceRatios.isEmpty)
        run.reference = [ReferenceRun(mode: "-p", commitToPresent: [25_000_000, 25_000_000], presentToPresent: [])]
        #expect(run.referenceRatios.count == 1)
        #expect(abs((run.referenceRatios.first?.ratio ?? 0) - 1.1) < 0.002)
        #expect(run.summary.contains("reference -p c2p median = 1.1"))
    }
}

@Suite struct LatencyComparisonTests {
    func run(_ pacing: String, latencies: [UInt64]) -> LatencyRun {
        var shown: [UInt64: ShownMessage] = [:]
        for (index, latency) in latencies.enumerated() {
            let id = UInt64(index + 1)
            shown[id] = ShownMessage(
                source: "presented", id: id, enqueuedAt: 1_000, drainedAt: 1_000, committedAt: 1_000,
                shownAt: 1_000 + latency)
        }
        var run = LatencyRun(
            compositor: "weston", sent: Array(shown.keys).sorted(),
            outputs: [
                OutputReport(
                    name: "headless", modeRefreshNanoseconds: 16_666_667, expected: Array(shown.keys).sorted(),
                    shown: shown)
            ])
        run.pacing = pacing
        return run
    }

    @Test func picksTheLowestMedianAndItsGainOverFrame() throws {
        let comparison = LatencyComparison(runs: [
            run("frame", latencies: [28_000_000, 29_000_000, 30_000_000]),
            run("immediate", latencies: [27_000_000, 28_000_000, 40_000_000]),
            run("deadline", latencies: [31_000_000, 32_000_000, 33_000_000]),
        ])
        let row = try #require(comparison.rows.first)
        #expect(row.medians.map(\.pacing) == ["frame", "immediate", "deadline"])
        #expect(row.best == "immediate")
        let gain = Double(row.gainOverFrame)
        #expect(abs(gain - 1_000_000) < 30_000, "\(gain)")  // HdrHistogram: within 0.1 % of each median
        #expect(comparison.everyMessageAccountedFor)
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(comparison.json.serialized.utf8)) as? [String: Any])
        #expect(document["schema"] as? String == "multiscreen-latency-all/1")
        #expect((document["runs"] as? [Any])?.count == 3)
        let first = try #require((document["comparison"] as? [[String: Any]])?.first)
        #expect(first["best"] as? String == "immediate")
        #expect(Set((first["medianMs"] as? [String: Any] ?? [:]).keys) == ["frame", "immediate", "deadline"])
        #expect(comparison.summary.contains("best median: immediate"))
    }

    @Test func frameWinningGainsNothing() throws {
        let comparison = LatencyComparison(runs: [
            run("frame", latencies: [10_000_000]), run("deadline", latencies: [20_000_000]),
        ])
        let row = try #require(comparison.rows.first)
        #expect(row.best == "frame" && row.gainOverFrame == 0)
    }
}
