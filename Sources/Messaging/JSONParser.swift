/// A strict RFC 8259 parser over UTF-8 bytes that says exactly what is wrong and where.
///
/// Strict on purpose: the input comes from the network. Invalid UTF-8, lone surrogates, control characters in
/// strings, duplicate keys, trailing garbage and nesting deeper than ``maximumDepth`` are all errors.
struct JSONParser {
    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0

    /// Parses a complete document. - Throws: ``MessageError`` with code `parseError` and the byte offset.
    static func parse(_ bytes: [UInt8]) throws(MessageError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.position != bytes.count { throw parser.error("unexpected data after the JSON value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ what: String) -> MessageError {
        MessageError(.parseError, "\(what) at byte \(position)")
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    private mutating func expect(_ literal: String, _ value: JSONValue) throws(MessageError) -> JSONValue {
        for byte in literal.utf8 {
            guard current == byte else { throw error("invalid literal (expected \(literal))") }
            position += 1
        }
        return value
    }

    private mutating func parseValue() throws(MessageError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func enter() throws(MessageError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("nesting deeper than \(Self.maximumDepth)") }
    }

    private mutating func parseObject() throws(MessageError) -> JSONValue {
        try enter()
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let keyPosition = position
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            if members.updateValue(value, forKey: key) != nil {
                throw MessageError(.parseError, "duplicate key \"\(key)\" at byte \(keyPosition)")
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return .object(members)
            default: throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(MessageError) -> JSONValue {
        try enter()
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return .array(elements)
            default: throw error("expected ',' or ']'")
            }
        }
    }

    private mutating func parseNumber() throws(MessageError) -> JSONValue {
        let start = position
        var isInteger = true
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw error("expected a digit")
        }
        if first == UInt8(ascii: "0") {
            position += 1
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard try skipRequiredDigits() else { throw error("expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard try skipRequiredDigits() else { throw error("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger, let integer = Int(text) { return .integer(integer) }
        guard let number = Double(text), number.isFinite else { throw error("number out of range") }
        return .number(number)
    }

    private mutating func skipDigits() {
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
    }

    private mutating func skipRequiredDigits() throws(MessageError) -> Bool {
        let start = position
        skipDigits()
        return position > start
    }

    private mutating func parseString() throws(MessageError) -> String {
        position += 1  // the opening quote
        var scalars = String.UnicodeScalarView()
        while true {
            guard let byte = current else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                position += 1
                scalars.append(try parseEscape())
            case 0..<0x20:
                throw error("control character in string")
            case 0..<0x80:
                scalars.append(Unicode.Scalar(byte))
                position += 1
            default:
                scalars.append(try parseMultibyteScalar())
            }
        }
    }

    private mutating func parseEscape() throws(MessageError) -> Unicode.Scalar {
        guard let byte = current else { throw error("unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try parseHex4()
            if (0xD800..<0xDC00).contains(unit) {
                guard current == UInt8(ascii: "\\"), position + 1 < bytes.count,
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw error("high surrogate without a low surrogate") }
                position += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("invalid low surrogate") }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(unit) else { throw error("lone low surrogate") }
            return scalar
        default:
            position -= 1
            throw error("invalid escape")
        }
    }

    private mutating func parseHex4() throws(MessageError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Self.hexDigit(byte) else { throw error("invalid \\u escape") }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// Decodes one UTF-8 sequence of 2–4 bytes, rejecting overlong forms, surrogates and values above U+10FFFF.
    private mutating func parseMultibyteScalar() throws(MessageError) -> Unicode.Scalar {
        let lead = bytes[position]
        let (length, minimum, initial): (Int, UInt32, UInt32) =
            switch lead {
            case 0xC2...0xDF: (2, 0x80, UInt32(lead & 0x1F))
            case 0xE0...0xEF: (3, 0x800, UInt32(lead & 0x0F))
            case 0xF0...0xF4: (4, 0x10000, UInt32(lead & 0x07))
            default: (0, 0, 0)
            }
        guard length > 0, position + length <= bytes.count else { throw error("invalid UTF-8") }
        var value = initial
        for offset in 1..<length {
            let continuation = bytes[position + offset]
            guard continuation & 0xC0 == 0x80 else { throw error("invalid UTF-8") }
            value = value << 6 | UInt32(continuation & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { throw error("invalid UTF-8") }
        position += length
        return scalar
    }
}
