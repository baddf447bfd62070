import Synchronization

/// How often each log call site may write: a token bucket per site (the file and line of the `logger.…` call),
/// shared by every logger of the process.
///
/// Why per site and not per logger: a flood comes from one place repeating on outside input (a client opening
/// connections in a loop, a page posting messages as fast as it can, `accept` failing with `EMFILE`), while the
/// lines around it must still get through. Each site may write `burst` lines at once and `perSecond` lines a second
/// after that; what it may not write is counted, and the site's next line that gets through says how many of its
/// lines were suppressed since. So a site driven at any rate writes at most `burst + perSecond × seconds` lines,
/// and nothing is suppressed silently. journald's `RateLimitIntervalSec`/`RateLimitBurst` work the same way, per
/// service; per site is finer.
public final class LogRateLimiter: Sendable {
    /// What one site is allowed right now.
    public enum Verdict: Equatable, Sendable {
        /// Write the line; `suppressed` lines of this site were dropped since its last written line.
        case write(suppressed: Int)
        /// Drop the line (counted).
        case suppress
    }

    public struct Site: Hashable, Sendable {
        public var file: String
        public var line: UInt

        public init(file: String, line: UInt) {
            self.file = file
            self.line = line
        }
    }

    private struct Bucket {
        var tokens: Double
        var refilledAt: Duration
        var suppressed = 0
    }

    private struct State {
        var buckets: [Site: Bucket] = [:]
        var suppressedTotal = 0
    }

    public let burst: Int
    public let perSecond: Double
    private let now: @Sendable () -> Duration
    private let state = Mutex(State())

    /// - Parameters:
    ///   - burst: lines a site may write at once.
    ///   - perSecond: lines a site may write each second after its burst.
    ///   - now: the time on a monotonic clock, from any origin (injected by tests).
    public init(
        burst: Int = 100, perSecond: Double = 10, now: @escaping @Sendable () -> Duration = LogRateLimiter.monotonic
    ) {
        precondition(burst >= 1 && perSecond > 0)
        self.burst = burst
        self.perSecond = perSecond
        self.now = now
    }

    /// Whether the site may write a line now; counts the line when it may not.
    public func admit(_ site: Site) -> Verdict {
        let time = now()
        return state.withLock { state in
            var bucket = state.buckets[site] ?? Bucket(tokens: Double(burst), refilledAt: time)
            let elapsed = Double((time - bucket.refilledAt) / .milliseconds(1)) / 1000
            bucket.tokens = min(Double(burst), bucket.tokens + elapsed * perSecond)
            bucket.refilledAt = time
            let verdict: Verdict
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                verdict = .write(suppressed: bucket.suppressed)
                bucket.suppressed = 0
            } else {
                bucket.suppressed += 1
                state.suppressedTotal += 1
                verdict = .suppress
            }
            state.buckets[site] = bucket
            return verdict
        }
    }

    /// `ContinuousClock` from the first call: monotonic, and counting while the machine is suspended.
    public static let monotonic: @Sendable () -> Duration = {
        let origin = ContinuousClock.now
        return { origin.duration(to: .now) }
    }()

    /// Lines dropped so far, every site together.
    public var suppressedTotal: Int { state.withLock { $0.suppressedTotal } }
}
