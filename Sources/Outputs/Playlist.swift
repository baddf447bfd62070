/// What a screen plays in turn: items each shown for its time, over and over. Which item plays is a function of the
/// wall clock and the playlist's ``epoch`` alone, never of when anything started: every screen given the same
/// playlist, on this kiosk or another whose clock agrees (NTP), shows the same item and switches at the same moment,
/// and a kiosk restarted mid-item (or a screen plugged in) shows the item the others show.
public struct Playlist: Codable, Equatable, Hashable, Sendable {
    public struct Item: Codable, Equatable, Hashable, Sendable {
        /// An image or video file (an absolute path), an image or video by URL (an asset: an `http://` or `https://`
        /// URL whose path ends in an image's or a video's extension), a web page (any other `file://`, `http://` or
        /// `https://` URL), a text slide (`text:WORDS`), a card (`card:WORDS`) or `blank` (``content``).
        public var source: String
        /// How long it shows, in seconds (a video is cut there, or played again until then); nil for a video that
        /// plays its own length (``length``).
        public var seconds: Double?
        /// A video's own length, as measured on this kiosk (``timed(by:)``), for an item without ``seconds``. Not part
        /// of what the item is: neither saved with it nor compared, so the same playlist set again is the same.
        public var length: Double?
        /// An asset's expected SHA-256 (64 lower-case hexadecimal digits): a download whose bytes differ is refused.
        /// Absent from state saved before assets existed, which still decodes.
        public var sha256: String?
        /// When it may play, in seconds since 1970: from `from` on, until before `until`; nil, no bound. Outside its
        /// window an item is left out of the cycle, as if the playlist did not hold it (a promotion that ended never
        /// shows, and the items around it close up).
        public var from: Double?
        public var until: Double?
        /// How it takes over from the item before when the clock switches to it; nil: a cut.
        public var transition: PlaylistTransition?

        public init(
            source: String, seconds: Double?, sha256: String? = nil, from: Double? = nil, until: Double? = nil,
            transition: PlaylistTransition? = nil
        ) {
            self.source = source
            self.seconds = seconds
            self.sha256 = sha256
            self.from = from
            self.until = until
            self.transition = transition
        }

        /// How long its turn lasts: its ``seconds``, else its video's ``length``; nil while that is not measured.
        public var duration: Double? { seconds ?? length }

        /// Whether it is in the cycle at `time`: its window holds `time` and its ``duration`` is known (a video that
        /// plays its own length joins the cycle once it is measured).
        public func isPlayable(at time: Double) -> Bool {
            duration != nil && (from.map { time >= $0 } ?? true) && (until.map { time < $0 } ?? true)
        }

        /// Whether it plays a video's own length: no ``seconds``.
        public var playsItsLength: Bool { seconds == nil }

        private enum CodingKeys: String, CodingKey { case source, seconds, sha256, from, until, transition }

        public static func == (a: Item, b: Item) -> Bool {
            (a.source, a.seconds, a.sha256, a.from, a.until) == (b.source, b.seconds, b.sha256, b.from, b.until)
                && a.transition == b.transition
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(source)
            hasher.combine(seconds)
            hasher.combine(sha256)
            hasher.combine(from)
            hasher.combine(until)
            hasher.combine(transition)
        }

        /// How long its crossfade lasts (``PlaylistTransition/crossfade``): ``Playlist/crossfadeSeconds``, at most half
        /// its turn; nil for a cut.
        public var fadeSeconds: Double? {
            guard transition == .crossfade else { return nil }
            return min(Playlist.crossfadeSeconds, (duration ?? Playlist.crossfadeSeconds * 2) / 2)
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
    /// While paused (`playlist.pause`): the moment it stopped at (seconds since 1970). A paused playlist holds the item
    /// of that moment and never switches, until ``resumed(at:)``.
    public var pausedAt: Double?
    /// This screen's place in a spread (a group of screens showing one playlist side by side, in a set order): it shows
    /// the item `offset` places after the one the clock says, and switches when that one does, so the group shows
    /// consecutive items and moves along together. 0 for a screen on its own.
    public var offset: Int

    /// The shortest item: a switch more often than this is not a signage playlist but a busy loop.
    public static let shortestItem = 0.5
    /// How long a crossfade lasts: long enough to read as a fade, short enough that the item is the item.
    public static let crossfadeSeconds = 1.0
    /// The most items a playlist holds.
    public static let mostItems = 1000

    public init(items: [Item], fit: MediaFit = .contain, epoch: Double = 0, pausedAt: Double? = nil, offset: Int = 0) {
        self.items = items
        self.fit = fit
        self.epoch = epoch
        self.pausedAt = pausedAt
        self.offset = offset
    }

    private enum CodingKeys: String, CodingKey { case items, fit, epoch, pausedAt, offset }

    // Saved playlists from before spreads (and steps) had no `offset` (nor `pausedAt`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        items = try container.decode([Item].self, forKey: .items)
        fit = try container.decode(MediaFit.self, forKey: .fit)
        epoch = try container.decode(Double.self, forKey: .epoch)
        pausedAt = try container.decodeIfPresent(Double.self, forKey: .pausedAt)
        offset = try container.decodeIfPresent(Int.self, forKey: .offset) ?? 0
    }

    /// The items whose window holds `time` (``Item/isPlayable(at:)``), by index in ``items``: the cycle at `time`.
    public func playable(at time: Double) -> [Int] { items.indices.filter { items[$0].isPlayable(at: time) } }

    /// One cycle through every item whose duration is known, in seconds, windows aside (the cycle at a moment is
    /// ``playable(at:)``'s).
    public var cycle: Double { items.reduce(0) { $0 + ($1.duration ?? 0) } }

    /// The seconds of these items (indices in ``items``) one after the other.
    private func seconds(of indices: some Sequence<Int>) -> Double {
        indices.reduce(0) { $0 + (items[$1].duration ?? 0) }
    }

    /// This playlist with the lengths of its videos that play their own (``Item/playsItsLength``) filled in from
    /// `lengths` (source → seconds, as measured), each kept within ``shortestItem`` and a day, like any item's time,
    /// and to the millisecond (what kiosks measuring the same file agree on).
    public func timed(by lengths: [String: Double]) -> Playlist {
        guard items.contains(where: \.playsItsLength) else { return self }
        var timed = self
        for index in timed.items.indices where timed.items[index].playsItsLength {
            timed.items[index].length = lengths[timed.items[index].source].map {
                (min(max($0, Self.shortestItem), 86_400) * 1000).rounded() / 1000
            }
        }
        return timed
    }

    /// The item playing at `time` (seconds since 1970), when it started, and when the next one starts (never, for a
    /// list of one or a paused list: nothing switches, so nothing wakes; an item's window opening or closing is a
    /// switch too). With no item in its window, the first item, which the caller finds not playable.
    public func position(at time: Double) -> (index: Int, started: Double, next: Double) {
        let run = running(at: pausedAt ?? time)
        let index = run.cycle.isEmpty ? 0 : run.cycle[(run.turn + offset) % run.cycle.count]
        return (index, run.started, pausedAt == nil ? run.next : .infinity)
    }

    /// The clock's turn at `time`: its place in the cycle of the items playable then (unshifted by ``offset``), that
    /// cycle, when the turn started and when it ends, as if nothing held it.
    private func running(at time: Double) -> (turn: Int, cycle: [Int], started: Double, next: Double) {
        let playable = playable(at: time)
        let windowChange = items.flatMap { [$0.from, $0.until] }.compactMap { $0 }.filter { $0 > time }.min()
        let change = windowChange ?? .infinity
        let cycle = seconds(of: playable)
        guard playable.count > 1, cycle > 0 else { return (0, playable, epoch, change) }
        var start = epoch + ((time - epoch) / cycle).rounded(.down) * cycle
        for (turn, index) in playable.enumerated() {
            let end = start + (items[index].duration ?? 0)
            if time < end { return (turn, playable, start, min(end, change)) }
            start = end
        }
        // Rounding put `time` at the very end of the cycle: the first item of the next one.
        return (0, playable, start, min(start + (items[playable[0]].duration ?? 0), change))
    }

    /// Where the turn that shows item `index` begins in the cycle of the items playable at `time`, in seconds from the
    /// cycle's start; nil for an item not in it.
    private func place(ofShown index: Int, at time: Double) -> Double? {
        let playable = playable(at: time)
        guard let at = playable.firstIndex(of: index) else { return nil }
        let turn = ((at - offset) % playable.count + playable.count) % playable.count
        return seconds(of: playable[..<turn])
    }

    /// When the turn of item `index` that plays at `time`, or played last before it, started (seconds since 1970):
    /// ``position(at:)``'s start when `index` is the item playing then; else that item's latest start at or before
    /// `time`, for a caller whose item is a moment behind the clock (a screen still on the item before a switch its
    /// timer has not made yet).
    public func start(ofItem index: Int, at time: Double) -> Double {
        let position = position(at: time)
        guard index != position.index, let wanted = place(ofShown: index, at: time),
            let current = place(ofShown: position.index, at: time)
        else { return position.started }
        // Both turns' places in one cycle, from the start of the cycle the playing turn is in.
        let start = position.started - current + wanted
        let cycle = seconds(of: playable(at: time))
        return start > time ? start - cycle : start
    }

    // MARK: Steps an operator takes (`playlist.next`, `previous`, `pause`, `resume`)

    /// This playlist moved so that item `index` shows from `time`, the items after it following from there: the cycle
    /// begins somewhere else, and the clock goes on deciding. Paused, it stays paused, at the item's start.
    public func starting(item index: Int, at time: Double) -> Playlist {
        guard let place = place(ofShown: index, at: time) else { return self }
        var moved = self
        moved.epoch = time - place
        if pausedAt != nil { moved.pausedAt = time }
        return moved
    }

    /// This playlist held at `time`: the item playing then stays, without switching (already paused: unchanged).
    public func paused(at time: Double) -> Playlist {
        guard pausedAt == nil else { return self }
        var held = self
        held.pausedAt = time
        return held
    }

    /// This playlist going on at `time` from where it was paused: the held item gets the rest of its time (not paused:
    /// unchanged).
    public func resumed(at time: Double) -> Playlist {
        guard let pausedAt else { return self }
        var going = self
        going.epoch += time - pausedAt
        going.pausedAt = nil
        return going
    }

    /// Why these items cannot be a playlist, or nil.
    public static func problem(items: [Item]) -> String? {
        if items.isEmpty { return "a playlist needs at least one item" }
        if items.count > mostItems { return "a playlist holds at most \(mostItems) items" }
        for (index, item) in items.enumerated() {
            let place = "item \(index + 1)"
            if let seconds = item.seconds, !(seconds >= shortestItem && seconds <= 86_400) {
                return "\(place): seconds must be \(shortestItem) to 86400"
            }
            if item.seconds == nil && item.mediaKind != .video {
                return
                    "\(place): needs seconds (only a video, told by its name's extension, may go without and play its own length)"
            }
            if item.source.isEmpty || item.source.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                return "\(place): a file's absolute path, a page's URL or a slide's words, without control characters"
            }
            switch item.content {
            case .page(let url), .asset(let url):
                if url.contains(" ") { return "\(place): a URL has no spaces (percent-encode them)" }
            case .text(let words), .card(let words):
                if words.allSatisfy(\.isWhitespace) { return "\(place): \(item.source.prefix(5)) needs words after it" }
            case .file(let path) where !path.hasPrefix("/"):
                return
                    "\(place): \(path) is neither an absolute path, a file://, http:// or https:// URL, text:WORDS, card:WORDS nor blank"
            default: break
            }
            if let from = item.from, let until = item.until, from >= until {
                return "\(place): from must come before until"
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
