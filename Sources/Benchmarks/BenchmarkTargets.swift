import Foundation

/// One figure of a benchmark against the target for it: the benchmarks that judge themselves (`bench media`)
/// say which targets they met, so that a run is read without the issue beside it.
public struct BenchmarkTarget: Codable, Sendable, Equatable {
    /// What the figure is, in words (`one screen: Multiscreen ÷ gst-launch, CPU per second of video`).
    public var figure: String
    public var value: Double
    public var unit: String
    /// The most `value` may be.
    public var atMost: Double
    /// `value` is a number and at most `atMost`: a figure that could not be measured (NaN) is not met.
    public var met: Bool

    public init(figure: String, value: Double, unit: String, atMost: Double) {
        self.figure = figure
        self.value = value
        self.unit = unit
        self.atMost = atMost
        self.met = value.isFinite && value <= atMost
    }
}

/// A benchmark's results and the targets judged from them: one JSON document (`{"results": […], "targets": […]}`),
/// or the result lines followed by a table of the targets.
public struct TargetedResults: Codable, Sendable {
    public var results: [BenchmarkResult]
    public var targets: [BenchmarkTarget]

    public init(results: [BenchmarkResult], targets: [BenchmarkTarget]) {
        self.results = results
        self.targets = targets
    }

    /// The JSON document; a figure that could not be measured is `"nan"` (JSON has no NaN).
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The targets as a table for people: figure, value, target, met.
    public var table: String {
        func number(_ value: Double) -> String { value.isFinite ? String(format: "%.3f", value) : "nan" }
        let rows = targets.map { target in
            [
                target.figure, "\(number(target.value)) \(target.unit)", "≤ \(number(target.atMost)) \(target.unit)",
                target.met ? "met" : "NOT MET",
            ]
        }
        let header = ["figure", "value", "target", "met"]
        let widths = (0..<header.count).map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        return ([header] + rows).map { row in
            row.enumerated().map { column, cell in
                cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }

    /// Prints the JSON document, or the result lines, a blank line and the table.
    public func print(json: Bool) throws {
        if json {
            Swift.print(try self.json())
        } else {
            for result in results { Swift.print(result.line) }
            Swift.print("\n" + table)
        }
    }
}
