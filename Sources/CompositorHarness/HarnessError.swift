/// Why the harness could not do what it was asked, precisely enough to fix it from a CI log.
///
/// A compositor that dies or never becomes ready usually says why on its stderr, so errors about a compositor carry
/// the tail of its log.
public struct HarnessError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in one sentence.
    public var message: String
    /// The last lines of the relevant process's output (compositor log, tool's stderr), if any.
    public var logTail: String?

    public init(_ message: String, logTail: String? = nil) {
        self.message = message
        let trimmed = logTail?.trimmingTrailingNewlines()
        self.logTail = (trimmed?.isEmpty ?? true) ? nil : trimmed
    }

    public var description: String {
        guard let logTail else { return message }
        return "\(message)\n--- log tail ---\n\(logTail)\n--- end of log ---"
    }
}

extension String {
    /// The last `count` lines, for error messages that must stay readable.
    func lastLines(_ count: Int) -> String {
        let lines = split(separator: "\n", omittingEmptySubsequences: false)
        return lines.suffix(count).joined(separator: "\n")
    }

    func trimmingTrailingNewlines() -> String {
        var result = Substring(self)
        while result.last == "\n" || result.last == "\r" { result = result.dropLast() }
        return String(result)
    }
}

/// Runs `body`; if it throws, runs `cleanup` (remove a runtime directory, stop a compositor) before rethrowing, so a
/// start-up that fails halfway leaks nothing.
func cleaningUp<T>(onError cleanup: () -> Void, _ body: () throws -> T) rethrows -> T {
    do {
        return try body()
    } catch {
        cleanup()
        throw error
    }
}
