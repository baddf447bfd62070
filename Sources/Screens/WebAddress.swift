/// The web addresses a screen may show: `file://` (a local app directory) and `http(s)://`.
public enum WebAddress {
    public static let schemes = ["file://", "http://", "https://"]

    /// Why `url` cannot be shown, or nil when it can.
    public static func problem(_ url: String) -> String? {
        if url.isEmpty { return "the URL is empty" }
        if url.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) {
            return "a URL has no spaces or control characters (percent-encode them)"
        }
        let lower = url.lowercased()
        guard let scheme = schemes.first(where: { lower.hasPrefix($0) }), url.count > scheme.count else {
            return "a URL starts with file://, http:// or https:// and names something"
        }
        return nil
    }
}
