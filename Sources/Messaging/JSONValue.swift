import Foundation

/// A JSON document as the message codec needs it: small, exact, and written back deterministically (object keys
/// sorted, so `"method"` precedes `"params"`, `"result"` and a reply can be compared byte for byte).
///
/// Parsing is Foundation's `JSONSerialization` (`parse(_:)`), not `JSONDecoder`. On Linux (checked with Swift 6.3.1)
/// `JSONDecoder` reports every syntax error as "The given data was not valid JSON." with no underlying error, finds bad
/// escapes, invalid UTF-8 and unrepresentable numbers only lazily, as an internal error type whose description is an
/// enum dump, and decodes `1.0` as an `Int`. `JSONSerialization` validates the whole document eagerly and says what
/// and where ("Invalid value around character 19.", "Invalid UTF-8 sequence 2 bytes starting from character 35."),
/// which the codec passes on to clients. Its `Any` result is mapped here: booleans are told from numbers by their
/// class (Foundation's boolean `NSNumber`), integers from floating-point numbers by the stored type (a number written
/// without fraction or exponent is stored as an integer).
///
/// What Foundation's parser accepts beyond RFC 8259, and this codec therefore accepts too: a trailing comma in an
/// object or array, a byte order mark, and UTF-16/32 input (detected from the first bytes). A duplicate key keeps the
/// last value silently, as nearly every JSON library does; acceptable for a local control protocol, where the
/// client is a local user or script. Nesting is bounded by Foundation at 512 levels ("Too many nested arrays or
/// dictionaries"), so no deeper document reaches the recursion of `init(foundationObject:)`.
public enum JSONValue: Equatable, Hashable, Sendable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in `Int` (`1.0` and `1e2` are `number`).
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Compact JSON text.
    public var serialized: String {
        var output = ""
        write(to: &output)
        return output
    }

    func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .integer(let value): output += String(value)
        case .number(let value):
            // JSON has no NaN or infinity; null is what JavaScript's JSON.stringify writes for them too.
            output += value.isFinite ? "\(value)" : "null"
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let elements):
            output += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (position, key) in members.keys.sorted().enumerated() {
                if position > 0 { output += "," }
                Self.writeString(key, to: &output)
                output += ":"
                members[key]!.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    /// Parses a complete JSON document (any value at the top level). - Throws: ``MessageError`` with code
    /// `parseError` and Foundation's description of what is wrong and where.
    public static func parse(_ bytes: [UInt8]) throws(MessageError) -> JSONValue {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
        } catch {
            let nsError = error as NSError
            let description = nsError.userInfo[NSDebugDescriptionErrorKey] as? String ?? nsError.localizedDescription
            throw MessageError(.parseError, "not JSON: \(description)")
        }
        guard let value = JSONValue(foundationObject: object) else {
            throw MessageError(.parseError, "not JSON: unexpected \(type(of: object)) from JSONSerialization")
        }
        return value
    }

    /// The class of Foundation's boolean `NSNumber`s (`__NSCFBoolean`), which `JSONSerialization` returns for
    /// `true` and `false` and for nothing else (`1 as Any is Bool` holds for any `NSNumber`, so that test won't do).
    private static let booleanClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// A value of `JSONSerialization`'s result; nil for anything it does not return.
    private init?(foundationObject object: Any) {
        switch object {
        case is NSNull: self = .null
        case let string as String: self = .string(string)
        case let decimal as NSDecimalNumber:
            // Foundation's decimal holds a number with more digits than a `Double` (integers beyond Int64, and
            // Int64.min); its description is the number in digits. Its `doubleValue` is not always the nearest
            // `Double` (and that one then writes and reads back as another), so the digits are rounded by `Double(_:)`.
            let text = decimal.description
            if let integer = Int(text) {
                self = .integer(integer)
            } else {
                self = .number(Double(text) ?? decimal.doubleValue)
            }
        case let number as NSNumber:
            if ObjectIdentifier(type(of: number)) == Self.booleanClass {
                self = .bool(number.boolValue)
                return
            }
            switch UInt8(bitPattern: number.objCType.pointee) {
            case UInt8(ascii: "q"), UInt8(ascii: "l"), UInt8(ascii: "i"), UInt8(ascii: "s"), UInt8(ascii: "c"):
                self = .integer(Int(number.int64Value))
            default:  // "d" (written with fraction or exponent), "Q" (above Int64.max)
                self = .number(number.doubleValue)
            }
        case let array as [Any]:
            var elements: [JSONValue] = []
            elements.reserveCapacity(array.count)
            for element in array {
                guard let value = JSONValue(foundationObject: element) else { return nil }
                elements.append(value)
            }
            self = .array(elements)
        case let dictionary as [String: Any]:
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(dictionary.count)
            for (key, member) in dictionary {
                guard let value = JSONValue(foundationObject: member) else { return nil }
                members[key] = value
            }
            self = .object(members)
        default:
            return nil
        }
    }
}
