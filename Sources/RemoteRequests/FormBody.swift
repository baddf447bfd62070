import Foundation

/// An `application/x-www-form-urlencoded` body (the phone remote's `POST /claim` and `POST /send` without
/// JavaScript), parsed apart from the HTTP server so that it can be fuzzed on its own (reliability R9).
public enum FormBody {
    /// The fields of `text`; a later field of the same name wins. Nil when a name is not valid percent-encoding (the
    /// form is not one we sent); a value that is not becomes empty.
    public static func parse(_ text: String) -> [String: String]? {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]) else { return nil }
            fields[name] = parts.count > 1 ? decode(parts[1]) ?? "" : ""
        }
        return fields
    }

    /// One name or value: `+` is a space, then percent-decoding.
    static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// `fields` as a browser would send them: every byte but the unreserved ones percent-encoded, a space as `+`.
    public static func encode(_ fields: [String: String]) -> String {
        fields.sorted { $0.key < $1.key }.map { "\(encode(component: $0.key))=\(encode(component: $0.value))" }
            .joined(separator: "&")
    }

    static func encode(component: String) -> String {
        var encoded = ""
        for byte in component.utf8 {
            switch byte {
            case UInt8(ascii: " "): encoded += "+"
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default: encoded += String(format: "%%%02X", byte)
            }
        }
        return encoded
    }
}
