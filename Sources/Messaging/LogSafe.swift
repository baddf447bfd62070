extension StringProtocol {
    /// The text with control characters written as `\u{…}` escapes: user text in a log line can then never forge
    /// a line of its own (a newline) or drive the terminal that shows the log (an escape sequence).
    public var logSafe: String {
        var result = ""
        for scalar in unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}" {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension StringProtocol {
    /// A URL as a log may show it: `user:password@` becomes `…@`, and the query and the fragment (where pages carry
    /// tokens and keys, `?key=…`, `#access_token=…`) become `?…` and `#…`; then control characters are escaped as in
    /// ``logSafe``.
    public var logSafeURL: String {
        var text = String(self)
        if let schemeEnd = text.range(of: "://") {
            let authorityEnd = text[schemeEnd.upperBound...].firstIndex { "/?#".contains($0) } ?? text.endIndex
            if let at = text[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@") {
                text.replaceSubrange(schemeEnd.upperBound...at, with: "…@")
            }
        }
        if let fragment = text.firstIndex(of: "#") { text.replaceSubrange(fragment..., with: "#…") }
        if let question = text.firstIndex(of: "?") {
            let end = text[question...].firstIndex(of: "#") ?? text.endIndex
            text.replaceSubrange(question..<end, with: "?…")
        }
        return text.logSafe
    }
}
