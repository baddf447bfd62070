/// When to try again something that failed and is retried for as long as Multiscreen runs (the fleet link's broker
/// connection, a web page whose process crashed): the delay doubles from `initial` to `maximum` with each failure in a
/// row, each delay a random fraction (`jitter`) of its ceiling so that many kiosks do not retry in step; a try that
/// held for `stable` seconds starts the doubling over, and one that failed at once keeps backing off.
public struct RetrySchedule: Sendable {
    public var initial: Double
    public var maximum: Double
    public var jitter: ClosedRange<Double>
    public var stable: Double
    /// Failures in a row since the doubling last started over.
    public private(set) var failures = 0

    public init(initial: Double, maximum: Double, jitter: ClosedRange<Double> = 1...1, stable: Double) {
        precondition(initial > 0 && maximum >= initial && jitter.lowerBound > 0 && jitter.upperBound <= 1)
        self.initial = initial
        self.maximum = maximum
        self.jitter = jitter
        self.stable = stable
    }

    /// A try failed after lasting `seconds` (0: it never worked): the delay before the next one.
    public mutating func failed(afterLasting seconds: Double = 0) -> Double {
        if seconds >= stable { failures = 0 }
        let ceiling = min(maximum, initial * Double(1 << min(failures, 30)))
        failures += 1
        return ceiling * Double.random(in: jitter)
    }
}
