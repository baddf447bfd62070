import Outputs

/// A ``Playlist`` as the text a ring slot carries (the slot holds strings, not arrays): a first line with the epoch,
/// the fit and the offset, then one line per item, its seconds and its source separated by a tab. Sources never hold control
/// characters (``Playlist/problem(items:)``), so a line is an item.
enum PlaylistText {
    static func encode(_ playlist: Playlist) -> String {
        var lines = ["\(playlist.epoch) \(playlist.fit.rawValue) \(playlist.offset)"]
        for item in playlist.items { lines.append("\(item.seconds)\t\(item.source)") }
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
            guard let tab = line.firstIndex(of: "\t"), let seconds = Double(line[..<tab]) else { return nil }
            items.append(Playlist.Item(source: String(line[line.index(after: tab)...]), seconds: seconds))
        }
        return Playlist(items: items, fit: fit, epoch: epoch, offset: offset)
    }
}
