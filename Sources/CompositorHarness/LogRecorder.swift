import Logging
import Synchronization

/// A log handler that keeps every line it is given, level first, as a terminal would show it: tests use it to check
/// what a component logs (for instance that text from outside never reaches the log with raw control characters).
public final class LogRecorder: LogHandler, @unchecked Sendable {
    private let lines = Mutex<[String]>([])
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init() {}

    /// The lines so far, each with its metadata after the message.
    public var recorded: [String] { lines.withLock { $0 } }

    /// A logger whose lines go to this recorder.
    public func logger(label: String = "test") -> Logger { Logger(label: label) { _ in self } }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let fields = (metadata.merging(event.metadata ?? [:]) { $1 }).sorted { $0.key < $1.key }
        let suffix = fields.map { " \($0.key)=\($0.value)" }.joined()
        lines.withLock { $0.append("\(event.level) \(event.message)\(suffix)") }
    }
}

extension String {
    /// Whether the text holds a control character (a newline, an escape…) as such, not escaped.
    public var hasRawControlCharacters: Bool {
        unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
