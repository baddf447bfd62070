import Logging

/// The process's logging: one line per event on standard error, flushed at once (tests and benchmarks read it while
/// the process runs), each call site rate-limited by one shared ``LogRateLimiter``.
public enum LoggingSetup {
    /// The limiter every logger of the process shares.
    public static let limiter = LogRateLimiter()

    /// Sets the process's log handler; call once, before the first logger is made.
    public static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return RateLimitedLogHandler(upstream: handler, limiter: limiter)
        }
    }
}
