/// Order statistics for benchmark samples. Medians and high percentiles, never means: these machines are noisy.
public enum SampleStatistics {
    /// The `p`-th percentile (0…100) by nearest rank.
    public static func percentile(_ samples: [Double], _ p: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    public static func median(_ samples: [Double]) -> Double { percentile(samples, 50) }
}
