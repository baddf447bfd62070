import Logging
import Synchronization
import Testing

@testable import Logs

/// A clock the test moves by hand.
private final class ManualClock: Sendable {
    private let time = Mutex(Duration.zero)
    func advance(by step: Duration) { time.withLock { $0 += step } }
    var now: @Sendable () -> Duration { { [self] in time.withLock { $0 } } }
}

/// Collects what reaches the upstream handler.
private final class LineCollector: Sendable {
    let lines = Mutex([String]())
}

private struct CollectingHandler: LogHandler {
    let collector: LineCollector
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { collector.lines.withLock { $0.append("\(event.message)") } }
}

@Suite struct LogRateLimiterTests {
    @Test func aSiteWritesItsBurstThenItsRate() {
        let clock = ManualClock()
        let limiter = LogRateLimiter(burst: 10, perSecond: 2, now: clock.now)
        let site = LogRateLimiter.Site(file: "A.swift", line: 1)
        var written = 0
        // 10 000 lines a second for 10 s, one every 100 µs.
        for _ in 0..<100_000 {
            if case .write = limiter.admit(site) { written += 1 }
            clock.advance(by: .microseconds(100))
        }
        // The burst, then 2 a second for 10 s (the bucket refills continuously: at most one more at the edge).
        #expect(written >= 10 + 19 && written <= 10 + 21)
        #expect(limiter.suppressedTotal == 100_000 - written)
    }

    @Test func theNextWrittenLineCountsWhatWasSuppressed() {
        let clock = ManualClock()
        let limiter = LogRateLimiter(burst: 1, perSecond: 1, now: clock.now)
        let site = LogRateLimiter.Site(file: "A.swift", line: 1)
        #expect(limiter.admit(site) == .write(suppressed: 0))
        for _ in 0..<7 { #expect(limiter.admit(site) == .suppress) }
        clock.advance(by: .seconds(1))
        #expect(limiter.admit(site) == .write(suppressed: 7))
        clock.advance(by: .seconds(1))
        #expect(limiter.admit(site) == .write(suppressed: 0))
    }

    @Test func sitesHaveTheirOwnBuckets() {
        let clock = ManualClock()
        let limiter = LogRateLimiter(burst: 2, perSecond: 1, now: clock.now)
        let noisy = LogRateLimiter.Site(file: "A.swift", line: 1)
        let quiet = LogRateLimiter.Site(file: "A.swift", line: 2)
        for _ in 0..<1000 { _ = limiter.admit(noisy) }
        #expect(limiter.admit(quiet) == .write(suppressed: 0))
        #expect(limiter.admit(LogRateLimiter.Site(file: "B.swift", line: 1)) == .write(suppressed: 0))
    }

    @Test func theHandlerDropsAndThenSaysHowMany() {
        let clock = ManualClock()
        let collector = LineCollector()
        let limiter = LogRateLimiter(burst: 3, perSecond: 1, now: clock.now)
        let logger = Logger(label: "test") { _ in
            RateLimitedLogHandler(upstream: CollectingHandler(collector: collector), limiter: limiter)
        }
        // One call site, as a refusal in a server's loop is.
        func refuse(_ index: Int) { logger.warning("refused \(index)") }
        for index in 0..<100 { refuse(index) }
        clock.advance(by: .seconds(1))
        refuse(100)
        logger.info("another site")
        for _ in 0..<10 { logger.debug("never limited") }
        let lines = collector.lines.withLock { $0 }
        #expect(
            lines == [
                "refused 0", "refused 1", "refused 2",
                "97 more lines like the next were suppressed (rate limit of this log site)", "refused 100",
                "another site",
            ] + Array(repeating: "never limited", count: 10))
    }
}
