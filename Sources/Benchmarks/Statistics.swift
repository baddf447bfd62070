import FrameTiming
import Outputs

/// Order statistics for benchmark samples. Medians and high percentiles, never means: these machines are noisy.
public enum SampleStatistics {
    /// The `p`-th percentile (0…100) by nearest rank (``Percentile/nearestRank(_:percent:)``, the one rule every
    /// figure of Multiscreen uses); NaN for no samples.
    public static func percentile(_ samples: [Double], _ p: Double) -> Double {
        Percentile.nearestRank(samples.sorted(), percent: p) ?? .nan
    }

    public static func median(_ samples: [Double]) -> Double { percentile(samples, 50) }
}
