/// Why a config file was refused. The caller logs ``description`` and carries on with the defaults: a broken
/// config must never stop the screens.
///
/// Every case names where the problem is: a line and column for syntax errors (from the TOML parser), the full
/// key path (`rule[2].match.nmae`) for everything found after parsing, since the parsed tree keeps no positions.
public enum RoleConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not valid TOML at all.
    case syntax(file: String?, line: Int, column: Int, message: String)
    /// A key this version does not know (most often a typo, which must not be silently ignored).
    case unknownKey(file: String?, key: String, expected: [String])
    /// A required key is missing.
    case missingKey(file: String?, key: String)
    /// A key has a value of the wrong TOML type.
    case wrongType(file: String?, key: String, expected: String)
    /// A key has a value of the right type that is not allowed (an invalid role name, an unknown content mode…).
    case invalidValue(file: String?, key: String, value: String, reason: String)
    /// The file exists but could not be read.
    case unreadable(file: String, reason: String)

    public var description: String {
        switch self {
        case .syntax(let file, let line, let column, let message):
            return "\(Self.prefix(file))line \(line), column \(column): \(message)"
        case .unknownKey(let file, let key, let expected):
            let list = expected.joined(separator: ", ")
            return "\(Self.prefix(file))unknown key '\(key)' (expected one of: \(list))"
        case .missingKey(let file, let key):
            return "\(Self.prefix(file))missing key '\(key)'"
        case .wrongType(let file, let key, let expected):
            return "\(Self.prefix(file))'\(key)' must be \(expected)"
        case .invalidValue(let file, let key, let value, let reason):
            return "\(Self.prefix(file))'\(key)' = \"\(value)\": \(reason)"
        case .unreadable(let file, let reason):
            return "\(file): cannot read: \(reason)"
        }
    }

    /// The same error, attributed to a file.
    public func inFile(_ path: String) -> RoleConfigError {
        switch self {
        case .syntax(_, let line, let column, let message):
            return .syntax(file: path, line: line, column: column, message: message)
        case .unknownKey(_, let key, let expected): return .unknownKey(file: path, key: key, expected: expected)
        case .missingKey(_, let key): return .missingKey(file: path, key: key)
        case .wrongType(_, let key, let expected): return .wrongType(file: path, key: key, expected: expected)
        case .invalidValue(_, let key, let value, let reason):
            return .invalidValue(file: path, key: key, value: value, reason: reason)
        case .unreadable: return self
        }
    }

    private static func prefix(_ file: String?) -> String { file.map { "\($0): " } ?? "" }
}
