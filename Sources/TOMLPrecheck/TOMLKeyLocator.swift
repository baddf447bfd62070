/// Where a key named by its path (`theme.background`, `rule[2].match.name`) stands in a TOML text, for errors found
/// after parsing: TOMLKit's parsed tree keeps no positions, and "line 14, column 1" is what an installer editing
/// the file over SSH needs. Best effort over the forms Multiscreen's configs use (tables, arrays of tables, dotted
/// keys, inline tables on one line); a key that is not in the text (a missing key) is placed at its table's header.
public enum TOMLKeyLocator {
    public struct Position: Equatable, Sendable {
        public var line: Int
        public var column: Int

        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

    public static func position(of path: String, in text: String) -> Position? {
        let target = components(path)
        guard !target.isEmpty else { return nil }
        var header: [String] = []
        var arrayCounts: [String: Int] = [:]
        var best: (position: Position, length: Int)?
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.prefix { $0 != "#" }
            let indent = line.prefix { $0 == " " || $0 == "\t" }.count
            let body = line.dropFirst(indent).trimmingSuffix()
            let here = Position(line: offset + 1, column: indent + 1)
            if body.hasPrefix("[[") && body.hasSuffix("]]") {
                let name = String(body.dropFirst(2).dropLast(2)).trimmed()
                arrayCounts[name, default: 0] += 1
                header = components(name).dropLast() + ["\(components(name).last ?? name)[\(arrayCounts[name]!)]"]
            } else if body.hasPrefix("[") && body.hasSuffix("]") {
                header = components(String(body.dropFirst().dropLast()).trimmed())
            } else if let equals = body.firstIndex(of: "=") {
                let key = header + components(String(body[..<equals]).trimmed())
                if key == target { return here }
                // An inline table: `match = { name = "x" }` holds `match.name`.
                if target.count == key.count + 1, Array(target.prefix(key.count)) == key,
                    let inner = innerKey(target[target.count - 1], in: body[equals...])
                {
                    let column: Int = indent + body.distance(from: body.startIndex, to: inner) + 1
                    return Position(line: here.line, column: column)
                }
                continue
            } else {
                continue
            }
            // A table header: the nearest place for a key of that table that is not in the text.
            if header.count <= target.count, Array(target.prefix(header.count)) == header,
                header.count > (best?.length ?? 0)
            {
                best = (here, header.count)
            }
        }
        return best?.position
    }

    /// Where `key` starts inside an inline table's text (`{ name = "x" }`).
    private static func innerKey(_ key: String, in text: Substring) -> String.Index? {
        var search = text.startIndex
        while let found = text[search...].firstRange(of: key) {
            let before = found.lowerBound == text.startIndex ? " " : text[text.index(before: found.lowerBound)]
            let after = text[found.upperBound...].drop { $0 == " " }.first
            if before == " " || before == "{" || before == ",", after == "=" { return found.lowerBound }
            search = found.upperBound
        }
        return nil
    }

    /// `rule[2].match.name` → `["rule[2]", "match", "name"]`; quotes around key parts are dropped.
    private static func components(_ path: String) -> [String] {
        path.split(separator: ".").map { String($0).trimmed().trimmingQuotes() }.filter { !$0.isEmpty }
    }
}

extension StringProtocol {
    fileprivate func trimmed() -> String {
        String(drop { $0 == " " || $0 == "\t" }).trimmingSuffix()
    }

    fileprivate func trimmingSuffix() -> String {
        var text = String(self)
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return text
    }

    fileprivate func trimmingQuotes() -> String {
        let text = String(self)
        guard text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first else {
            return text
        }
        return String(text.dropFirst().dropLast())
    }
}
