/// Array values toml++ 3.4.0 cannot parse safely.
///
/// Where an array expects a value (after `[` or `,`, past blanks, line breaks and comments), toml++ handles `]` and
/// `,` itself and otherwise asserts that a value starts: a `}` there (`a = [}`, `a = [1, }`), or a line separator
/// it counts as whitespace but does not skip (U+0085, U+2028, U+2029), fails that assertion.
///
/// The scan follows what matters for that and nothing more: comments, the four kinds of string (so that `"[}"` is
/// text), table headers (skipped with their line), and the nesting of arrays and inline tables.
enum ArrayValues {
    static let message = "an array value is missing before '}' or a line separator (U+0085, U+2028, U+2029)"

    private enum Open {
        case array
        case table
    }

    static func firstUnparsable(in text: String) -> TOMLPrecheck.Problem? {
        var scanner = Scanner(Array(text.utf8))
        var open: [Open] = []
        var expectingValue = false
        while let byte = scanner.peek() {
            if expectingValue, open.last == .array {
                scanner.skipBlanksLineBreaksAndComments()
                if scanner.startsUnparsableValue() {
                    return TOMLPrecheck.Problem(line: scanner.line, column: scanner.column, message: message)
                }
                expectingValue = false
                continue
            }
            switch byte {
            case UInt8(ascii: "#"):
                scanner.skipComment()
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                scanner.skipString()
            case UInt8(ascii: "[") where open.isEmpty && scanner.atLineStart:
                // A table header: its key cannot hold an array (TableHeaders checks how it starts).
                scanner.skipLine()
            case UInt8(ascii: "["):
                scanner.advance()
                open.append(.array)
                expectingValue = true
            case UInt8(ascii: "{"):
                scanner.advance()
                open.append(.table)
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                scanner.advance()
                _ = open.popLast()
            case UInt8(ascii: ","):
                scanner.advance()
                expectingValue = open.last == .array
            default:
                scanner.advance()
            }
        }
        return nil
    }

    /// A position in UTF-8 bytes, with its line and column.
    private struct Scanner {
        private let bytes: [UInt8]
        private var index = 0
        private(set) var line = 1
        private var lineStart = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
            // A byte order mark, which toml++ skips.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
                index = 3
                lineStart = 3
            }
        }

        var column: Int { index - lineStart + 1 }

        /// Only blanks before this byte on its line.
        var atLineStart: Bool {
            bytes[lineStart..<index].allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        }

        func peek(_ offset: Int = 0) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        mutating func advance(_ count: Int = 1) {
            for _ in 0..<count where index < bytes.count {
                if bytes[index] == UInt8(ascii: "\n") {
                    line += 1
                    lineStart = index + 1
                }
                index += 1
            }
        }

        mutating func skipComment() {
            while let byte = peek(), byte != UInt8(ascii: "\n") { advance() }
        }

        mutating func skipLine() {
            while let byte = peek(), byte != UInt8(ascii: "\n") {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { skipString() } else { advance() }
            }
        }

        mutating func skipBlanksLineBreaksAndComments() {
            while let byte = peek() {
                switch byte {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"): advance()
                case UInt8(ascii: "#"): skipComment()
                default: return
                }
            }
        }

        /// `}`, or U+0085, U+2028 or U+2029 in UTF-8.
        func startsUnparsableValue() -> Bool {
            switch peek() {
            case UInt8(ascii: "}"): true
            case 0xC2: peek(1) == 0x85
            case 0xE2: peek(1) == 0x80 && (peek(2) == 0xA8 || peek(2) == 0xA9)
            default: false
            }
        }

        /// A basic or literal string, one line or multi-line, from its opening quote to past its closing one. A
        /// one-line string also ends at the end of its line (toml++ reports it unterminated).
        mutating func skipString() {
            guard let quote = peek() else { return }
            let multiLine = peek(1) == quote && peek(2) == quote
            let escapes = quote == UInt8(ascii: "\"")
            advance(multiLine ? 3 : 1)
            while let byte = peek() {
                if escapes && byte == UInt8(ascii: "\\") {
                    advance(2)
                } else if byte == quote && (!multiLine || (peek(1) == quote && peek(2) == quote)) {
                    // Up to two more quotes may close a multi-line string's content (`""""` ends with a quote).
                    advance(multiLine ? 3 : 1)
                    while multiLine && peek() == quote { advance() }
                    return
                } else if byte == UInt8(ascii: "\n") && !multiLine {
                    return
                } else {
                    advance()
                }
            }
        }
    }
}
