import Logging

/// A log handler that passes each line to `upstream` only when its call site's ``LogRateLimiter`` bucket allows,
/// and says how many lines of that site were dropped before the next one it passes. Every logger of the process
/// shares one limiter (``LoggingSetup/limiter``), so no site can flood the log, whatever the input.
///
/// `debug` and `trace` lines are not limited: those levels are off unless someone turns them on to see every
/// line (the benchmarks read one `debug` line per message), and what a kiosk logs by default is `info` and above.
public struct RateLimitedLogHandler: LogHandler {
    public var upstream: any LogHandler
    public let limiter: LogRateLimiter

    public init(upstream: any LogHandler, limiter: LogRateLimiter) {
        self.upstream = upstream
        self.limiter = limiter
    }

    public func log(event: LogEvent) {
        guard event.level > .debug else { return upstream.log(event: event) }
        switch limiter.admit(LogRateLimiter.Site(file: event.file, line: event.line)) {
        case .suppress: return
        case .write(let suppressed):
            if suppressed > 0 {
                var notice = event
                notice.message = "\(suppressed) more lines like the next were suppressed (rate limit of this log site)"
                notice.metadata = nil
                upstream.log(event: notice)
            }
            upstream.log(event: event)
        }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { upstream[metadataKey: key] }
        set { upstream[metadataKey: key] = newValue }
    }

    public var metadata: Logger.Metadata {
        get { upstream.metadata }
        set { upstream.metadata = newValue }
    }

    public var logLevel: Logger.Level {
        get { upstream.logLevel }
        set { upstream.logLevel = newValue }
    }
}
