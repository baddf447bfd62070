extension DisplayBenchmarks {
    /// How the frames of timed messages fared alone and under a load, on one screen: each phase's enqueue → commit
    /// p50 and p99 (`frames-PHASE/SCREEN`), the loaded phase's p99 over the quiet one's (`p99-LOADED/QUIET`), and
    /// the noise to judge that ratio by: the quiet phase's two halves' p99, the larger over the smaller
    /// (`p99-QUIET-half/half`); the load is within the noise when its ratio is not above that.
    /// - Parameters:
    ///   - commits: Screen → message id → milliseconds from enqueue to the commit that showed it.
    ///   - quiet: The quiet phase's name and the ids of its timed messages; `loaded` the same under the load.
    static func framesUnderLoad(
        benchmark: String, screen: String, commits: [String: [Int: Double]], quiet: (name: String, ids: [Int]),
        loaded: (name: String, ids: [Int])
    ) -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        var p99s: [Double] = []
        for (phase, ids) in [quiet, loaded] {
            let values = ids.compactMap { commits[screen]?[$0] }
            for (metric, p) in [("p50", 50.0), ("p99", 99.0)] {
                let value = SampleStatistics.percentile(values, p)
                if metric == "p99" { p99s.append(value) }
                results.append(
                    BenchmarkResult(
                        benchmark: benchmark, subject: "frames-\(phase)/\(screen)",
                        metric: "enqueue-to-commit-\(metric)", value: value, unit: "ms", samples: values.count))
            }
        }
        results.append(
            BenchmarkResult(
                benchmark: benchmark, subject: "frames/\(screen)", metric: "p99-\(loaded.name)/\(quiet.name)",
                value: p99s[1] / p99s[0], unit: "ratio"))
        let values = quiet.ids.compactMap { commits[screen]?[$0] }
        let halves = [values.prefix(values.count / 2), values.suffix(values.count - values.count / 2)].map {
            SampleStatistics.percentile(Array($0), 99)
        }
        results.append(
            BenchmarkResult(
                benchmark: benchmark, subject: "frames/\(screen)", metric: "p99-\(quiet.name)-half/half",
                value: max(halves[0], halves[1]) / min(halves[0], halves[1]), unit: "ratio", samples: values.count))
        return results
    }
}
