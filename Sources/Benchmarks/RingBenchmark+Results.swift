import Messaging

/// What `bench ring` reports: each number as a line and as JSON, medians of the runs, and ratios to the baselines.
extension RingBenchmark {
    /// One reported number.
    public struct Result: Sendable {
        public var benchmark: String
        public var subject: String
        public var metric: String
        public var value: Double
        public var unit: String
        public var samples: Int
        /// Extra key/values (capacity, items, each run's value).
        public var details: [String: Double] = [:]

        /// `ring.throughput subject=spsc-ring metric=median value=... unit=ops/ms samples=5 capacity=1024`
        public var line: String {
            let extra = details.keys.sorted().map { "\($0)=\(Self.format(details[$0]!))" }.joined(separator: " ")
            return "\(benchmark) subject=\(subject) metric=\(metric) value=\(Self.format(value)) unit=\(unit) "
                + "samples=\(samples)" + (extra.isEmpty ? "" : " " + extra)
        }

        public var json: JSONValue {
            var object: [String: JSONValue] = [
                "benchmark": .string(benchmark), "subject": .string(subject), "metric": .string(metric),
                "value": value.isFinite ? .number(value) : .null, "unit": .string(unit), "samples": .integer(samples),
            ]
            for (key, value) in details { object[key] = .number(value) }
            return .object(object)
        }

        static func format(_ value: Double) -> String {
            guard value.isFinite else { return "nan" }
            if value == value.rounded() && abs(value) < 1e15 { return String(Int(value)) }
            return String((value * 1000).rounded() / 1000)
        }
    }

    static func repeated(_ runs: Int, _ measure: () -> Double) -> [Double] { (0..<runs).map { _ in measure() } }

    static func summary(
        _ benchmark: String, _ subject: String, _ runs: [Double], _ unit: String, _ details: [String: Double]
    )
        -> Result
    {
        var details = details
        for (index, value) in runs.enumerated() { details["run\(index + 1)"] = value }
        return Result(
            benchmark: benchmark, subject: subject, metric: "median", value: SampleStatistics.median(runs), unit: unit,
            samples: runs.count, details: details)
    }

    /// How many times better the ring is than `baseline` (higher is better for the ring in both benchmarks).
    static func ratio(_ benchmark: String, _ baseline: String, _ value: Double, _ details: [String: Double]) -> Result {
        Result(
            benchmark: benchmark, subject: "\(ring)-vs-\(baseline)", metric: "ratio", value: value, unit: "x",
            samples: 1, details: details)
    }
}

extension RingBenchmark {
    /// `{"benchmark": "ring", "options": {...}, "results": [...]}`, compact.
    public static func json(_ results: [Result], options: Options) -> String {
        var settings: [String: JSONValue] = [
            "items": .integer(options.items), "round-trips": .integer(options.roundTrips),
            "runs": .integer(options.runs),
            "async-stream-divisor": .integer(options.asyncStreamDivisor),
        ]
        if let cpus = options.cpus { settings["cpus"] = .array(cpus.map { .integer($0) }) }
        return JSONValue.object([
            "benchmark": .string("ring"), "options": .object(settings), "results": .array(results.map(\.json)),
        ]).serialized
    }
}
