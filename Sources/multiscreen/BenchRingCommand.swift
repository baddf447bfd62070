import ArgumentParser
import Benchmarks

/// `multiscreen bench ring`: the lock-free message ring against `Mutex<Deque>` and `AsyncStream`, by the method of
/// rigtorp/SPSCQueue's benchmark, plus the eventfd wakeup latency and syscalls per message (issue 3;
/// docs/benchmarks.md, "Message ring"). With `--pass`, one measurement of the ring alone (issue 14); with a
/// reference command after `--`, those passes alternated with it round by round (``RingBackToBack``). Build in
/// release first.
struct BenchRingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ring",
        abstract:
            "Message ring throughput, round trip, wakeup latency and syscalls per message vs Mutex<Deque> and AsyncStream."
    )

    @Flag(help: "Print one JSON document instead of one line per result.")
    var json = false

    @Option(help: "Pin the consumer/echo thread to the first CPU and the producer to the second, e.g. 0,1.")
    var cpus: String?

    @Option(help: "Repetitions of each measurement; medians are reported (default 5, or 1 with --pass).")
    var runs: Int?

    @Option(
        help: ArgumentHelp(
            "Run one measurement of the ring alone and print its line: throughput-1024, throughput-large (capacity = --items) or round-trip.",
            valueName: "pass"))
    var pass: RingBenchmark.Pass?

    @Option(help: "Items per throughput run (rigtorp: 10000000).")
    var items = 10_000_000

    @Option(help: "Round trips per run.")
    var roundTrips = 1_000_000

    @Option(help: "With a reference: rounds, each running every pass of the ring and of the reference (default 10).")
    var rounds: Int?

    @Option(
        help: ArgumentHelp(
            "With a reference: the passes of each round, comma-separated (default all three).", valueName: "passes"))
    var passes: String?

    @Option(help: "With a reference: a round is slow when both its round trips took at least this many ns (400).")
    var slowRoundTrip: Double?

    @Argument(
        parsing: .postTerminator,
        help: ArgumentHelp(
            "A reference queue's benchmark, run as REFERENCE ARG… PASS: it pins its own threads as --cpus says and prints value=N in bench ring's units; the ring's passes are alternated with it.",
            valueName: "reference"))
    var reference: [String] = []

    func validate() throws {
        if let cpus, parsedCPUs(cpus) == nil {
            throw ValidationError("--cpus takes two CPU numbers, e.g. 0,1")
        }
        if (runs ?? 1) < 1 || items < 1024 || roundTrips < 100 {
            throw ValidationError("--runs ≥ 1, --items ≥ 1024, --round-trips ≥ 100")
        }
        if reference.isEmpty {
            if rounds != nil || passes != nil || slowRoundTrip != nil {
                throw ValidationError("--rounds, --passes and --slow-round-trip go with a reference command after --")
            }
        } else {
            if pass != nil { throw ValidationError("--pass runs the ring alone; a reference runs every pass in turn") }
            if (rounds ?? 1) < 1 || (slowRoundTrip ?? 1) <= 0 {
                throw ValidationError("--rounds ≥ 1, --slow-round-trip > 0")
            }
            if let passes, parsedPasses(passes) == nil {
                throw ValidationError(
                    "--passes takes some of \(RingBenchmark.Pass.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
    }

    func run() throws {
        var options = RingBenchmark.Options()
        options.cpus = cpus.flatMap(parsedCPUs)
        options.runs = runs ?? (pass == nil ? 5 : 1)
        options.items = items
        options.roundTrips = roundTrips
        if let pass {
            let result = RingBenchmark.runPass(pass, options)
            print(json ? RingBenchmark.json([result], options: options) : result.line)
            return
        }
        if !reference.isEmpty {
            var backToBack = RingBackToBack.Options(
                ring: [
                    "/proc/self/exe".resolvingSymlinks, "bench", "ring", "--items", "\(items)", "--round-trips",
                    "\(roundTrips)",
                ],
                reference: reference)
            backToBack.rounds = rounds ?? backToBack.rounds
            backToBack.passes = passes.flatMap(parsedPasses) ?? backToBack.passes
            backToBack.cpus = options.cpus ?? backToBack.cpus
            backToBack.slowRoundTrip = slowRoundTrip ?? backToBack.slowRoundTrip
            let results = try RingBackToBack.run(backToBack) { result in
                if !json { print(result.line) }
            }
            if json { print(RingBenchmark.json(results, options: options)) }
            return
        }
        let results = RingBenchmark.run(options) { result in
            if !json { print(result.line) }
        }
        if json { print(RingBenchmark.json(results, options: options)) }
    }

    private func parsedPasses(_ text: String) -> [RingBenchmark.Pass]? {
        let passes = text.split(separator: ",").map { RingBenchmark.Pass(rawValue: String($0)) }
        return passes.isEmpty || passes.contains(nil) ? nil : passes.compactMap { $0 }
    }

    private func parsedCPUs(_ text: String) -> [Int]? {
        let cpus = text.split(separator: ",").compactMap { Int($0) }
        return cpus.count == 2 && cpus.allSatisfy { $0 >= 0 && $0 < 1024 } ? cpus : nil
    }
}

extension RingBenchmark.Pass: ExpressibleByArgument {}
