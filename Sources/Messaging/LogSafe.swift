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
