import Outputs

/// An ``InterruptRequest`` as the text a ring slot carries: `clear`, or a first line with what follows (`items` or
/// `named`), the epoch, the fit and the seconds (`-` for each one not given), then one line per item as
/// ``PlaylistText`` writes them, or the playlist's name. Neither a source nor a name holds control characters
/// (``Message/validate()``), so a line is an item and the name is one line.
enum InterruptText {
    static func encode(_ request: InterruptRequest) -> String {
        guard case .start(let source, let fit, let seconds, let epoch) = request else { return "clear" }
        let given = [epoch.map { "\($0)" }, fit?.rawValue, seconds.map { "\($0)" }].map { $0 ?? "-" }
        switch source {
        case .items(let items):
            return (["items " + given.joined(separator: " ")] + items.map(PlaylistText.line))
                .joined(separator: "\n")
        case .named(let name):
            return "named " + given.joined(separator: " ") + "\n" + name
        }
    }

    static func decode(_ text: String) -> InterruptRequest? {
        if text == "clear" { return .clear }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard !lines.isEmpty else { return nil }
        let head = lines.removeFirst().split(separator: " ").map(String.init)
        guard head.count == 4 else { return nil }
        let epoch = head[1] == "-" ? nil : Double(head[1])
        let fit = head[2] == "-" ? nil : MediaFit(rawValue: head[2])
        let seconds = head[3] == "-" ? nil : Double(head[3])
        guard (epoch == nil) == (head[1] == "-"), (fit == nil) == (head[2] == "-"), (seconds == nil) == (head[3] == "-")
        else { return nil }
        let source: InterruptRequest.Source
        switch head[0] {
        case "items":
            var items: [Playlist.Item] = []
            for line in lines {
                guard let item = PlaylistText.item(line) else { return nil }
                items.append(item)
            }
            source = .items(items)
        case "named":
            guard lines.count == 1 else { return nil }
            source = .named(String(lines[0]))
        default:
            return nil
        }
        return .start(source: source, fit: fit, seconds: seconds, epoch: epoch)
    }
}
