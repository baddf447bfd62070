import Foundation

/// One measured quantity of a benchmark, machine-readable.
public struct BenchmarkResult: Codable, Sendable {
    public var benchmark: String
    public var subject: String
    public var metric: String
    public var value: Double
    public var unit: String
    public var samples: Int

    public init(benchmark: String, subject: String, metric: String, value: Double, unit: String, samples: Int = 1) {
        self.benchmark = benchmark
        self.subject = subject
        self.metric = metric
        self.value = value
        self.unit = unit
        self.samples = samples
    }

    /// `startup subject=multiscreen-4 metric=median value=41.2 unit=ms samples=5`
    public var line: String {
        let shown = value.isFinite ? String(format: "%.3f", value) : "nan"
        return "\(benchmark) subject=\(subject) metric=\(metric) value=\(shown) unit=\(unit) samples=\(samples)"
    }
}

/// Prints results as JSON (one array) or as one line each.
public func printResults(_ results: [BenchmarkResult], json: Bool) {
    if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        if let data = try? encoder.encode(results) { print(String(decoding: data, as: UTF8.self)) }
    } else {
        for result in results { print(result.line) }
    }
}
