import Outputs

/// What `playlist.interrupt` asks of a screen: play something over whatever it shows, for a while or until cleared;
/// or end the interrupt playing there.
public enum InterruptRequest: Equatable, Hashable, Sendable {
    /// Play `source` from `epoch` (seconds since 1970; nil: the moment it is applied) for `seconds` (nil: until
    /// cleared), filling the screen as `fit` says (nil: `contain` for items, a named playlist's own fit).
    case start(source: Source, fit: MediaFit? = nil, seconds: Double? = nil, epoch: Double? = nil)
    /// End the interrupt playing on the screen.
    case clear

    /// What an interrupt plays.
    public enum Source: Equatable, Hashable, Sendable {
        /// Items given in the request, as `playlist.set`'s: they may name files on the kiosk.
        case items([Playlist.Item])
        /// A `[[playlist]]` of the config, by name: it names no file the caller chose.
        case named(String)
    }

    /// How long an interrupt may last, in seconds (a day: longer is a playlist, not an announcement).
    public static let seconds: ClosedRange<Double> = 1...86_400

    /// The files the request names on the kiosk: an interrupt's own items' paths (URLs are not files).
    public var paths: [String] {
        guard case .start(.items(let items), _, _, _) = self else { return [] }
        return items.map(\.source).filter { $0.hasPrefix("/") }
    }

    /// Whether the request carries items of its own, which only callers that may name files may send (as
    /// `playlist.set`), even when every item is a URL.
    public var hasItems: Bool {
        if case .start(.items, _, _, _) = self { return true }
        return false
    }
}
