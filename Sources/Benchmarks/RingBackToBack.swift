import CompositorHarness
import Messaging

/// `multiscreen bench ring --rounds N -- REFERENCE [ARG…]`: the ring against another queue's binary, pass by pass,
/// back to back (docs/benchmarks.md, "Message ring").
///
/// Virtual machines like ours move between a fast and a slow state for tens of seconds at a time, so two binaries
/// timed minutes apart compare the machine, not the queues. Here each pass of the ring (`bench ring --pass P`, a
/// process of its own, as the reference is) is paired with one run of the reference seconds apart, the order swapped
/// every round, and the ratio is taken per pair. The reference is run as `REFERENCE ARG… PASS`, must pin its own
/// threads as `--cpus` pins the ring's, and prints `value=N` in `bench ring`'s units (ops/ms, ns per round trip).
public enum RingBackToBack {
    public struct Options: Sendable {
        /// `multiscreen bench ring` itself: this binary's path and the words that reach that command.
        public var ring: [String]
        /// The reference's command line; the pass's name is appended.
        public var reference: [String]
        public var rounds = 10
        public var passes = RingBenchmark.Pass.allCases
        /// Consumer/echo on the first, producer on the second, for the ring's side.
        public var cpus = [0, 1]
        /// A round is slow when both its round trips took at least this many nanoseconds.
        public var slowRoundTrip = 400.0

        public init(ring: [String], reference: [String]) {
            self.ring = ring
            self.reference = reference
        }
    }

    /// One round of one pass: the ring's figure and the reference's, in the pass's unit.
    public struct Pair: Sendable, Equatable {
        public var round: Int
        public var pass: RingBenchmark.Pass
        public var ring: Double
        public var reference: Double

        public init(round: Int, pass: RingBenchmark.Pass, ring: Double, reference: Double) {
            self.round = round
            self.pass = pass
            self.ring = ring
            self.reference = reference
        }

        /// ring ÷ reference: above 1 the ring is faster at throughput, below 1 at the round trip.
        public var ratio: Double { ring / reference }
        var ringIsBetter: Bool { pass == .roundTrip ? ratio < 1 : ratio > 1 }

        var result: RingBenchmark.Result {
            RingBenchmark.Result(
                benchmark: "ring.back-to-back.round", subject: pass.rawValue, metric: "ratio", value: ratio, unit: "x",
                samples: 1, details: ["round": Double(round), "ring": ring, "reference": reference])
        }
    }

    /// What the machine was doing during a round, judged by its round trips (the pass that moves most with it).
    public enum State: String, Sendable, CaseIterable {
        /// Both round trips below the threshold.
        case fast
        /// Both at or above it.
        case slow
        /// The machine changed state between the two runs.
        case mixed

        init(_ roundTrip: Pair, slowRoundTrip: Double) {
            switch (roundTrip.ring >= slowRoundTrip, roundTrip.reference >= slowRoundTrip) {
            case (false, false): self = .fast
            case (true, true): self = .slow
            default: self = .mixed
            }
        }
    }

    /// Runs the rounds; `progress` gets each pair's line as it is measured, then every summary.
    public static func run(_ options: Options, progress: (RingBenchmark.Result) -> Void = { _ in }) throws
        -> [RingBenchmark.Result]
    {
        var pairs: [Pair] = []
        for round in 1...options.rounds {
            for pass in options.passes {
                let ringCommand =
                    options.ring + [
                        "--pass", pass.rawValue, "--cpus", options.cpus.map(String.init).joined(separator: ","),
                    ]
                let referenceCommand = options.reference + [pass.rawValue]
                let ring: Double
                let reference: Double
                if round % 2 == 1 {
                    ring = try value(of: ringCommand)
                    reference = try value(of: referenceCommand)
                } else {
                    reference = try value(of: referenceCommand)
                    ring = try value(of: ringCommand)
                }
                let pair = Pair(round: round, pass: pass, ring: ring, reference: reference)
                pairs.append(pair)
                progress(pair.result)
            }
        }
        let results = summaries(pairs, slowRoundTrip: options.slowRoundTrip)
        results.forEach(progress)
        return pairs.map(\.result) + results
    }

    /// Per pass, over every round (`all`) and per state (rounds without a round trip have no state): the medians of
    /// both sides and of the ratios, the smallest and largest ratio, and how many pairs the ring won.
    public static func summaries(_ pairs: [Pair], slowRoundTrip: Double) -> [RingBenchmark.Result] {
        var stateOfRound: [Int: State] = [:]
        for pair in pairs where pair.pass == .roundTrip {
            stateOfRound[pair.round] = State(pair, slowRoundTrip: slowRoundTrip)
        }
        var results: [RingBenchmark.Result] = []
        for pass in RingBenchmark.Pass.allCases {
            let ofPass = pairs.filter { $0.pass == pass }
            let groups: [(String, [Pair])] =
                [("all", ofPass)]
                + State.allCases.map { state in (state.rawValue, ofPass.filter { stateOfRound[$0.round] == state }) }
            for (state, group) in groups where !group.isEmpty {
                let ratios = group.map(\.ratio)
                results.append(
                    RingBenchmark.Result(
                        benchmark: "ring.back-to-back", subject: "\(pass.rawValue).\(state)", metric: "ratio-median",
                        value: SampleStatistics.median(ratios), unit: "x", samples: group.count,
                        details: [
                            "ring-median": SampleStatistics.median(group.map(\.ring)),
                            "reference-median": SampleStatistics.median(group.map(\.reference)),
                            "ratio-min": ratios.min()!, "ratio-max": ratios.max()!,
                            "ring-better": Double(group.filter(\.ringIsBetter).count),
                        ]))
            }
        }
        return results
    }

    /// The figure a run of `command` printed as `value=N` (positive), or an error naming the command.
    static func value(of command: [String]) throws -> Double {
        let process = try ChildProcess(command[0], Array(command.dropFirst()))
        let status = try process.waitForExit(timeout: 600)
        guard status == 0 else {
            throw HarnessError(
                "\(command.joined(separator: " ")) failed with status \(status)", logTail: process.logTail())
        }
        guard let value = value(in: process.output) else {
            throw HarnessError(
                "no positive value= in the output of \(command.joined(separator: " "))", logTail: process.logTail())
        }
        return value
    }

    /// The first `value=N` in `output` that stands as a word of its own, when N is a positive number.
    static func value(in output: String) -> Double? {
        for word in output.split(whereSeparator: \.isWhitespace) where word.hasPrefix("value=") {
            if let value = Double(word.dropFirst("value=".count)), value > 0, value.isFinite { return value }
            return nil
        }
        return nil
    }
}
