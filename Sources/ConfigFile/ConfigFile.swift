import Foundation
import TOMLKit
import TOMLPrecheck

/// Reading `config.toml`, once for every section's reader (the role rules, `[fleet]`, `[remote]`, `[web]`): the file's
/// text, then its TOML tree, each refusal with what `config check` and the log print, and TOMLPrecheck first, since the
/// bundled toml++ must never be handed some texts.
public enum ConfigFile {
    /// Why a config could not be read or parsed; a syntax error has its place.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public var message: String
        public var line: Int?
        public var column: Int?

        public init(_ message: String, line: Int? = nil, column: Int? = nil) {
            self.message = message
            self.line = line
            self.column = column
        }

        /// `line L, column C: message` when the place is known.
        public var description: String {
            guard let line, let column else { return message }
            return "line \(line), column \(column): \(message)"
        }
    }

    /// The text of the file at `path`; nil when there is no such file. Any file that reads (a FIFO, `/dev/null`) is
    /// read: through a handle, since `FileManager.contents(atPath:)` gives nil for a character device.
    public static func text(at path: String) throws(Problem) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { throw Problem("is a directory, not a config file") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Problem(FileManager.default.isReadableFile(atPath: path) ? "cannot be opened" : "permission denied")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw Problem(error.localizedDescription)
        }
        guard let text = String(data: data, encoding: .utf8) else { throw Problem("not UTF-8 text") }
        return text
    }

    /// The TOML tree of a config's text.
    public static func table(_ text: String) throws(Problem) -> TOMLTable {
        if let problem = TOMLPrecheck.firstProblem(in: text) {
            throw Problem(problem.message, line: problem.line, column: problem.column)
        }
        do {
            return try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw Problem(error.description, line: error.source.begin.line, column: error.source.begin.column)
        } catch {
            throw Problem("\(error)")
        }
    }
}
