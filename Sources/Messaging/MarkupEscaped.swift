extension StringProtocol {
    /// The text with the five characters that end a text node or a quoted attribute written as entities, for text
    /// placed into HTML or SVG: the phone remote's pages and the latency report's plots both show text that came
    /// from outside (a status line, an output's name).
    public var markupEscaped: String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for character in self {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
