import Messaging

/// `multiscreen latency --pacing all`: one run per pacing mode on the same kind of session, compared per output by
/// the median of message → shown (and p99), with the winner and its margin over `frame`.
public struct LatencyComparison: Sendable {
    public static let schema = "multiscreen-latency-all/1"

    public var runs: [LatencyRun]

    public init(runs: [LatencyRun]) { self.runs = runs }

    public struct Row: Equatable, Sendable {
        public var output: String
        /// Per pacing mode, in run order: median and p99 of message → shown, ns.
        public var medians: [(pacing: String, p50: UInt64, p99: UInt64)]

        public static func == (a: Row, b: Row) -> Bool {
            a.output == b.output
                && a.medians.elementsEqual(b.medians) { $0.pacing == $1.pacing && $0.p50 == $1.p50 && $0.p99 == $1.p99 }
        }

        /// The mode with the lowest median (the first one on a tie).
        public var best: String? { medians.min { $0.p50 < $1.p50 }?.pacing }

        /// How much lower the best median is than `frame`'s, ns (0 when `frame` wins or is missing).
        public var gainOverFrame: UInt64 {
            guard let frame = medians.first(where: { $0.pacing == "frame" }),
                let best = medians.min(by: { $0.p50 < $1.p50 })
            else { return 0 }
            return frame.p50 - best.p50
        }
    }

    /// One row per output named in the first run.
    public var rows: [Row] {
        guard let first = runs.first else { return [] }
        return first.outputs.map { output in
            Row(
                output: output.name,
                medians: runs.compactMap { run in
                    guard let d = run.outputs.first(where: { $0.name == output.name })?.messageToShown else {
                        return nil
                    }
                    return (run.pacing, d.p50, d.p99)
                })
        }
    }

    public var everyMessageAccountedFor: Bool { runs.allSatisfy(\.everyMessageAccountedFor) }

    public var json: JSONValue {
        .object([
            "schema": .string(Self.schema), "pacing": .string("all"),
            "accountedForEverywhere": .bool(everyMessageAccountedFor),
            "runs": .array(runs.map(\.json)),
            "comparison": .array(
                rows.map { row in
                    .object([
                        "output": .string(row.output),
                        "medianMs": .object(
                            Dictionary(uniqueKeysWithValues: row.medians.map { ($0.pacing, Distribution.ms($0.p50)) })),
                        "p99Ms": .object(
                            Dictionary(uniqueKeysWithValues: row.medians.map { ($0.pacing, Distribution.ms($0.p99)) })),
                        "best": .optional(row.best), "gainOverFrameMs": Distribution.ms(row.gainOverFrame),
                    ])
                }),
        ])
    }

    public var summary: String {
        var lines: [String] = []
        for row in rows {
            let figures = row.medians.map {
                "\($0.pacing) p50 \(LatencyRun.ms($0.p50)) p99 \(LatencyRun.ms($0.p99))"
            }
            lines.append("\(row.output): " + figures.joined(separator: " · ") + " ms")
            if let best = row.best {
                lines.append("  best median: \(best), \(LatencyRun.ms(row.gainOverFrame)) ms below frame")
            }
        }
        return lines.joined(separator: "\n")
    }
}
