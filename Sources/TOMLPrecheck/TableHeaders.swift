/// Table headers toml++ 3.4.0 cannot parse safely.
///
/// toml++ enters its key parser after `[` or `[[` and only asserts that a key starts there: `[=`, `[#`, `[[[`, `[\`
/// or a `[` that ends its line. Fixed upstream after 3.4.0 (toml++ pull request 301).
///
/// The check is by lines: a line whose first non-blank character is `[` is taken as a header. Inside a multi-line
/// string or array such a line is not one, so a value there that starts a line with `[` and then something other
/// than a key (`[ [1] ]`) is refused too; Multiscreen's config has no key where that is valid anyway.
enum TableHeaders {
    static let message = "a table header must start with a key (a letter, digit, _ or -, or a quoted key)"

    /// The first character that cannot start a header's key, or nil.
    static func firstUnparsable(in text: String) -> TOMLPrecheck.Problem? {
        // Lines split at the newline byte: "\r\n" is one Swift Character, so splitting Characters at "\n" would join a
        // line ending in CRLF to the next one and miss a header there (found by the fuzzer).
        for (index, line) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .enumerated()
        {
            var bytes = Array(line)
            // A byte order mark before the first line, which toml++ skips (found by the fuzzer in front of `[`).
            if index == 0 && bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
            var i = 0
            while i < bytes.count && isBlank(bytes[i]) { i += 1 }
            guard i < bytes.count, bytes[i] == UInt8(ascii: "[") else { continue }
            i += 1
            if i < bytes.count && bytes[i] == UInt8(ascii: "[") { i += 1 }
            while i < bytes.count && isBlank(bytes[i]) { i += 1 }
            if i < bytes.count && (bytes[i] == UInt8(ascii: "]") || startsKey(bytes[i])) { continue }
            return TOMLPrecheck.Problem(line: index + 1, column: i + 1, message: message)
        }
        return nil
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    /// A bare key's characters (A-Z a-z 0-9 _ -) or a string delimiter.
    private static func startsKey(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "\""),
            UInt8(ascii: "'"):
            return true
        default:
            return false
        }
    }
}
