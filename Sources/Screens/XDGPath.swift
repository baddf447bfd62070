import Foundation

/// XDG Base Directory lookups shared by the config file and the state file.
enum XDGPath {
    /// `$variable` when it is set to an absolute path, else `$HOME/<fallback>`.
    ///
    /// The spec: "If an implementation encounters a relative path in any of these variables it should consider
    /// the path invalid and ignore it."
    static func base(_ environment: [String: String], variable: String, fallback: String) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return trimmed(value) }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        return trimmed(home) + "/" + fallback
    }

    private static func trimmed(_ path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
