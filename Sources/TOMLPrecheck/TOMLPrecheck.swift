/// Finds the TOML texts that TOMLKit's bundled toml++ (3.4.0) cannot be handed safely.
///
/// In two places toml++ only asserts what the next character is: in a debug build a wrong guess aborts the process,
/// in a release build the assertion is an optimiser assumption, so what follows is undefined behaviour. Both were
/// found by scripts/fuzz (FuzzRoleConfig). Every config reader (roles, remote, web, fleet) runs this check first
/// and reports its problem like any other syntax error; the texts it refuses are all invalid TOML anyway.
public enum TOMLPrecheck {
    /// Where the text cannot be parsed safely, and why.
    public struct Problem: Equatable, Sendable, CustomStringConvertible {
        /// 1-based line, and 1-based column in bytes.
        public var line: Int
        public var column: Int
        public var message: String

        public var description: String { "line \(line), column \(column): \(message)" }
    }

    /// The first place in `text` that toml++ must not see, or nil.
    public static func firstProblem(in text: String) -> Problem? {
        let problems = [TableHeaders.firstUnparsable(in: text), ArrayValues.firstUnparsable(in: text)]
        return problems.compactMap { $0 }.min { ($0.line, $0.column) < ($1.line, $1.column) }
    }
}
