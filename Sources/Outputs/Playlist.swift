/// What a screen plays in turn: items each shown for its time, over and over. Which item plays is a function of the
/// wall clock and the playlist's ``epoch`` alone, never of when anything started: every screen given the same
/// playlist, on this kiosk or another whose clock agrees (NTP), shows the same item and switches at the same moment,
/// and a kiosk restarted mid-item (or a screen plugged in) shows the item the others show.
public struct Playlist: Codable, Equatable, Hashable, Sendable {
    public struct Item: Codable, Equatable, Hashable, Sendable {
        /// An image or video file (an absolute path), an image or video by URL (an asset: an `http://` or `https://`
        /// URL whose path ends in an image's or a video's extension), or a web page (any other `file://`, `http://`
        /// or `https://` URL).
        public var source: String
        /// How long it shows, in seconds (a video is cut there, or played again until then).
        public var seconds: Double
        /// An asset's expected SHA-256 (64 lower-case hexadecimal digits): a download whose bytes differ is refused.
        /// Absent from state saved before assets existed, which still decodes.
        public var sha256: String?

        public init(source: String, seconds: Double, sha256: String? = nil) {
            self.source = source
            self.seconds = seconds
            self.sha256 = sha256
        }

        /// A web page rather than a file: a `file://` URL, or an `http://` or `https://` URL that is not an asset.
        public var isPage: Bool {
            let lower = source.prefix(8).lowercased()
            return lower.hasPrefix("file://") || (Self.isWebURL(source) && assetKind == nil)
        }

        /// An image or video fetched by URL into the asset cache (``assetKind`` says which).
        public var isAsset: Bool { assetKind != nil }

        /// What an asset is, by its URL's path (before any `?query` or `#fragment`): nil for a path, a file URL or a
        /// web page.
        public var assetKind: MediaKind? {
            guard Self.isWebURL(source) else { return nil }
            let afterScheme = source.dropFirst(source.prefix(5).lowercased() == "https" ? 8 : 7)
            let withoutQuery = afterScheme.prefix { $0 != "?" && $0 != "#" }
            guard let slash = withoutQuery.firstIndex(of: "/") else { return nil }
            return MediaKind(recognisingExtensionOf: String(withoutQuery[slash...]))
        }

        private static func isWebURL(_ text: String) -> Bool {
            let lower = text.prefix(8).lowercased()
            return lower.hasPrefix("http://") || lower.hasPrefix("https://")
        }

        /// Whether `text` is a SHA-256 as an item holds it: 64 lower-case hexadecimal digits.
        public static func isSHA256(_ text: String) -> Bool {
            text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        }
    }

    public var items: [Item]
    public var fit: MediaFit
    /// Seconds since 1970 (UTC) at which a cycle began with the first item; by default 0, so that the same playlist
    /// lines up everywhere without anyone agreeing on a start.
    public var epoch: Double

    /// The shortest item: a switch more often than this is not a signage playlist but a busy loop.
    public static let shortestItem = 0.5
    /// The most items a playlist holds.
    public static let mostItems = 1000

    public init(items: [Item], fit: MediaFit = .contain, epoch: Double = 0) {
        self.items = items
        self.fit = fit
        self.epoch = epoch
    }

    /// One cycle through every item, in seconds.
    public var cycle: Double { items.reduce(0) { $0 + $1.seconds } }

    /// The item playing at `time` (seconds since 1970), when it started, and when the next one starts (never, for a
    /// list of one: nothing switches, so nothing wakes).
    public func position(at time: Double) -> (index: Int, started: Double, next: Double) {
        let cycle = self.cycle
        guard items.count > 1, cycle > 0 else { return (0, epoch, .infinity) }
        let elapsed = time - epoch
        let cycles = (elapsed / cycle).rounded(.down)
        var start = epoch + cycles * cycle
        for (index, item) in items.enumerated() {
            let end = start + item.seconds
            if time < end { return (index, start, end) }
            start = end
        }
        // Rounding put `time` at the very end of the cycle: the first item of the next one.
        return (0, start, start + items[0].seconds)
    }

    /// When the turn of item `index` that plays at `time`, or played last before it, started (seconds since 1970):
    /// ``position(at:)``'s start when `index` is the item playing then; else that item's latest start at or before
    /// `time`, for a caller whose item is a moment behind the clock (a screen still on the item before a switch its
    /// timer has not made yet).
    public func start(ofItem index: Int, at time: Double) -> Double {
        let position = position(at: time)
        guard index != position.index, items.indices.contains(index) else { return position.started }
        // Both items' places in one cycle, from the start of the cycle the playing item is in.
        let offset = { (item: Int) in self.items[..<item].reduce(0) { $0 + $1.seconds } }
        let start = position.started - offset(position.index) + offset(index)
        return start > time ? start - cycle : start
    }

    /// Why these items cannot be a playlist, or nil.
    public static func problem(items: [Item]) -> String? {
        if items.isEmpty { return "a playlist needs at least one item" }
        if items.count > mostItems { return "a playlist holds at most \(mostItems) items" }
        for (index, item) in items.enumerated() {
            let place = "item \(index + 1)"
            if !(item.seconds >= shortestItem && item.seconds <= 86_400) {
                return "\(place): seconds must be \(shortestItem) to 86400"
            }
            if item.source.isEmpty || item.source.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                return "\(place): a file's absolute path or a page's URL, without control characters"
            }
            if (item.isPage || item.isAsset) && item.source.contains(" ") {
                return "\(place): a URL has no spaces (percent-encode them)"
            }
            if !item.isPage && !item.isAsset && !item.source.hasPrefix("/") {
                return "\(place): \(item.source) is neither an absolute path nor a file://, http:// or https:// URL"
            }
            if let sha256 = item.sha256 {
                if !Item.isSHA256(sha256) { return "\(place): sha256 must be 64 hexadecimal digits" }
                if !item.isAsset {
                    return
                        "\(place): sha256 is only for an image or video by http(s) URL (a URL whose path ends in an image's or a video's extension)"
                }
            }
        }
        return nil
    }
}
