import Outputs

/// A ``Playlist`` as the text a ring slot carries (the slot holds strings, not arrays): a first line with the epoch,
/// the fit and the offset, then one line per item: its seconds (`-` for a video that plays its own length), its
/// source, then, when any is given, its sha256, its window (from, until) and its transition, separated by tabs. Sources never hold control characters (``Playlist/problem(items:)``), so a line is an item.
enum PlaylistText {
    static func encode(_ playlist: Playlist) -> String {
        var lines = ["\(playlist.epoch) \(playlist.fit.rawValue) \(playlist.offset)"]
        for item in playlist.items { lines.append(line(item)) }
        return lines.joined(separator: "\n")
    }

    static func decode(_ text: String) -> Playlist? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard !lines.isEmpty else { return nil }
        let head = lines.removeFirst().split(separator: " ")
        guard head.count == 3, let epoch = Double(head[0]), let fit = MediaFit(rawValue: String(head[1])),
            let offset = Int(head[2])
        else { return nil }
        var items: [Playlist.Item] = []
        for line in lines {
            guard let item = item(line) else { return nil }
            items.append(item)
        }
        return Playlist(items: items, fit: fit, epoch: epoch, offset: offset)
    }

    /// One item's line (``InterruptText`` writes its items the same way).
    static func line(_ item: Playlist.Item) -> String {
        var line = (item.seconds.map { "\($0)" } ?? "-") + "\t\(item.source)"
        guard item.sha256 != nil || item.from != nil || item.until != nil || item.transition != nil else { return line }
        line += "\t" + (item.sha256 ?? "")
        line += "\t" + (item.from.map { "\($0)" } ?? "") + "\t" + (item.until.map { "\($0)" } ?? "")
        return line + "\t" + (item.transition?.rawValue ?? "")
    }

    static func item(_ line: Substring) -> Playlist.Item? {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        let seconds = Double(fields[0])
        guard [2, 3, 5, 6].contains(fields.count), seconds != nil || fields[0] == "-" else { return nil }
        // Seconds, source, then the sha256 and the window, each empty for none.
        let field = { (index: Int) in fields.count > index && !fields[index].isEmpty ? String(fields[index]) : nil }
        return Playlist.Item(
            source: String(fields[1]), seconds: seconds, sha256: field(2), from: field(3).flatMap(Double.init),
            until: field(4).flatMap(Double.init), transition: field(5).flatMap(PlaylistTransition.init(rawValue:)))
    }
}
