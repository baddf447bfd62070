/// What the phone remote reads from a request's head before any route runs, apart from the HTTP server so that it can
/// be fuzzed behind NIO's own HTTP decoder (reliability R9, `FuzzRemoteHTTP`): the `Host`/`Origin` check (with an
/// `Origin` required on a request that changes something), the session cookie, and the code a QR link carries.
public enum RequestHead {
    /// Why a request is refused before its route runs (HTTP 403).
    public enum Refusal: Sendable, Equatable {
        /// `Host` or `Origin` is not one this remote is reached by (the reason names which).
        case host(String)
        /// A request that changes something came without an `Origin`: not a browser's form post or script.
        case originRequired

        /// The response body's line.
        public var reason: String {
            switch self {
            case .host(let reason): reason
            case .originRequired: RequestHead.originRequired
            }
        }
    }

    /// What a state-changing request without `Origin` is answered (403).
    public static let originRequired =
        "Origin is required: a request that changes something must come from the remote's own page"

    /// Nil when a request with this `Host` (its authority) and `Origin` may go on; `changesState`: a `POST`.
    public static func refusal(
        authority: String?, origin: String?, changesState: Bool, hosts: HostPolicy
    ) -> Refusal? {
        if let reason = hosts.refusal(host: authority, origin: origin) { return .host(reason) }
        if changesState, origin == nil { return .originRequired }
        return nil
    }

    /// The value of the cookie `name` in a request's `Cookie` fields (the first one so named); nil when none. Each
    /// field is `name=value` pairs separated by `;` (RFC 6265 §5.4); a value in double quotes loses them. An empty
    /// value (`name=` or `name=""`) is no session, as if the cookie were absent.
    public static func cookie(_ name: String, in fields: [String]) -> String? {
        for field in fields {
            for pair in field.split(separator: ";", omittingEmptySubsequences: true) {
                let trimmed = pair.drop { $0 == " " || $0 == "\t" }
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
                var value = trimmed[trimmed.index(after: equals)...]
                while let last = value.last, last == " " || last == "\t" { value = value.dropLast() }
                if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
                return value.isEmpty ? nil : String(value)
            }
        }
        return nil
    }

    /// The code a QR code's link (`/?code=…`) carries, when it can be one: 1 to 64 letters, digits, `-` or `_` (a
    /// token is base64url; a short code letters and digits). Nil otherwise: the page then asks for the code, and
    /// what the link carried is never put in the page.
    public static func linkCode(_ value: String) -> String? {
        guard (1...64).contains(value.utf8.count),
            value.utf8.allSatisfy({ byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            })
        else { return nil }
        return value
    }
}
