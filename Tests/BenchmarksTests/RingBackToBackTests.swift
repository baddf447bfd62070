import Foundation
import Testing

@testable import Benchmarks

@Suite struct RingBackToBackTests {
    typealias Pair = RingBackToBack.Pair

    /// The summary line of `pass` in `state`, from `results`.
    private func summary(_ results: [RingBenchmark.Result], _ pass: String, _ state: String) -> RingBenchmark.Result? {
        results.first { $0.benchmark == "ring.back-to-back" && $0.subject == "\(pass).\(state)" }
    }

    @Test func aRoundsStateComesFromBothItsRoundTrips() {
        let pairs = [
            Pair(round: 1, pass: .roundTrip, ring: 160, reference: 180),
            Pair(round: 1, pass: .throughput1024, ring: 240_000, reference: 150_000),
            Pair(round: 2, pass: .roundTrip, ring: 650, reference: 830),
            Pair(round: 2, pass: .throughput1024, ring: 60_000, reference: 45_000),
            // The ring's run slow, the reference's fast: neither state, whatever the ratio says.
            Pair(round: 3, pass: .roundTrip, ring: 700, reference: 175),
            Pair(round: 3, pass: .throughput1024, ring: 100_000, reference: 150_000),
        ]
        let results = RingBackToBack.summaries(pairs, slowRoundTrip: 400)
        #expect(summary(results, "round-trip", "all")?.samples == 3)
        #expect(summary(results, "round-trip", "fast")?.samples == 1)
        #expect(summary(results, "round-trip", "slow")?.samples == 1)
        #expect(summary(results, "round-trip", "mixed")?.value == 4)
        // A throughput pass takes its round's state.
        #expect(summary(results, "throughput-1024", "slow")?.details["ring-median"] == 60_000)
        #expect(summary(results, "throughput-1024", "mixed")?.details["ring-better"] == 0)
        #expect(summary(results, "throughput-large", "all") == nil)
    }

    @Test func betterMeansFasterInEachUnit() {
        let pairs = [
            Pair(round: 1, pass: .roundTrip, ring: 90, reference: 100),
            Pair(round: 2, pass: .roundTrip, ring: 110, reference: 100),
            Pair(round: 1, pass: .throughputLarge, ring: 2, reference: 1),
            Pair(round: 2, pass: .throughputLarge, ring: 3, reference: 1),
        ]
        let results = RingBackToBack.summaries(pairs, slowRoundTrip: 400)
        let roundTrip = summary(results, "round-trip", "all")
        #expect(roundTrip?.details["ring-better"] == 1)
        #expect(roundTrip?.details["ratio-min"] == 0.9)
        #expect(roundTrip?.details["ratio-max"] == 1.1)
        #expect(summary(results, "throughput-large", "all")?.details["ring-better"] == 2)
    }

    @Test func theValueIsAWordOfItsOwn() {
        #expect(
            RingBackToBack.value(in: "ring.round-trip subject=spsc-ring metric=median value=163.5 unit=ns") == 163.5)
        #expect(RingBackToBack.value(in: "value=84063 ops/ms") == 84063)
        #expect(RingBackToBack.value(in: "samples=1 run1=12 myvalue=3") == nil)
        #expect(RingBackToBack.value(in: "value=0") == nil)
        #expect(RingBackToBack.value(in: "value=fast") == nil)
        #expect(RingBackToBack.value(in: "") == nil)
    }

    /// Real processes: each round runs both sides, the order swapped every round, and a side that prints no figure
    /// fails the run with its command named.
    @Test func roundsAlternateTheOrderOfRealProcesses() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("back-to-back-\(getpid()).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        func side(_ name: String, _ value: Int) -> [String] {
            ["/bin/sh", "-c", "echo \(name) \"$@\" >> \(log); echo value=\(value)", "sh"]
        }
        var options = RingBackToBack.Options(ring: side("ring", 2), reference: side("reference", 1))
        options.rounds = 2
        options.passes = [.roundTrip]
        let results = try RingBackToBack.run(options)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(
            lines == [
                "ring --pass round-trip --cpus 0,1", "reference round-trip", "reference round-trip",
                "ring --pass round-trip --cpus 0,1",
            ])
        #expect(results.filter { $0.benchmark == "ring.back-to-back.round" }.count == 2)
        #expect(summary(results, "round-trip", "fast")?.value == 2)

        options.reference = ["/bin/sh", "-c", "echo nothing"]
        #expect(throws: (any Error).self) { try RingBackToBack.run(options) }
    }
}
