/// Something that happened, told to every producer whose ``ReplySink`` wants events (the control socket's
/// `events.subscribe` connections, …). On the wire it is a JSON-RPC notification: `{"method": name, "params": …}`.
///
/// The constructors below are every event the product publishes; their names and params are the protocol.
public struct Event: Equatable, Sendable {
    public var name: String
    public var params: [String: JSONValue]

    /// Every event the product publishes: the protocol's event names (docs/protocol.md lists each).
    public enum Name: String, CaseIterable, Sendable {
        case messageReceived = "message.received"
        case messagesCleared = "messages.cleared"
        case messageExpired = "message.expired"
        case cardOpened = "card.opened"
        case cardClosed = "card.closed"
        case cardReturned = "card.returned"
        case cardDiscarded = "card.discarded"
        case roleChanged = "role.changed"
        case controllerMoved = "controller.moved"
        case contentChanged = "content.changed"
        case screenHealth = "screen.health"
        case frameShown = "frame.shown"
        case eventsDropped = "events.dropped"
        case remoteClaimed = "remote.claimed"
        case remoteSuperseded = "remote.superseded"
        case remoteReleased = "remote.released"
        case remoteLocked = "remote.locked"
        case mediaStarted = "media.started"
        case mediaEnded = "media.ended"
        case mediaError = "media.error"
        case assetReady = "asset.ready"
        case assetFailed = "asset.failed"
        case playlistItem = "playlist.item"
        case playlistInterrupt = "playlist.interrupt"
        case playlistPlayed = "playlist.played"
        case powerChanged = "power.changed"
        case scheduleChanged = "schedule.changed"
    }

    public init(name: String, params: [String: JSONValue] = [:]) {
        self.name = name
        self.params = params
    }

    /// A message was accepted and logged (`screen` nil: for every screen).
    public static func messageReceived(id: UInt64, text: String, screen: String?) -> Event {
        Event(
            name: Name.messageReceived.rawValue,
            params: ["id": .integer(Int(id)), "text": .string(text), "screen": .optional(screen)])
    }

    /// Messages were cleared from one screen (`screen`) or from every screen (nil).
    public static func messagesCleared(screen: String?, count: Int) -> Event {
        Event(name: Name.messagesCleared.rawValue, params: ["screen": .optional(screen), "count": .integer(count)])
    }

    /// A message sent with a ttl reached it and is no longer shown.
    public static func messageExpired(id: UInt64) -> Event {
        Event(name: Name.messageExpired.rawValue, params: ["id": .integer(Int(id))])
    }

    public static func cardOpened(id: UInt64, screen: String, text: String) -> Event {
        Event(
            name: Name.cardOpened.rawValue,
            params: ["id": .integer(Int(id)), "screen": .string(screen), "text": .string(text)])
    }

    public static func cardClosed(id: UInt64, screen: String) -> Event {
        Event(name: Name.cardClosed.rawValue, params: ["id": .integer(Int(id)), "screen": .string(screen)])
    }

    /// A card was removed for good (`card.discard`).
    public static func cardDiscarded(id: UInt64) -> Event {
        Event(name: Name.cardDiscarded.rawValue, params: ["id": .integer(Int(id))])
    }

    /// A card went back to the controller's waiting list because its screen went away.
    public static func cardReturned(id: UInt64) -> Event {
        Event(name: Name.cardReturned.rawValue, params: ["id": .integer(Int(id))])
    }

    /// A screen's effective role changed; `from` nil for a screen that appeared, `to` nil for one that went away.
    public static func roleChanged(screen: String, from: String?, to: String?) -> Event {
        Event(
            name: Name.roleChanged.rawValue,
            params: ["screen": .string(screen), "from": .optional(from), "to": .optional(to)])
    }

    /// The controller UI moved; `standIn` while the preferred controller's output is gone.
    public static func controllerMoved(from: String?, to: String?, standIn: Bool) -> Event {
        Event(
            name: Name.controllerMoved.rawValue,
            params: ["from": .optional(from), "to": .optional(to), "standIn": .bool(standIn)])
    }

    public static func contentChanged(screen: String, from: String?, to: String?) -> Event {
        Event(
            name: Name.contentChanged.rawValue,
            params: ["screen": .string(screen), "from": .optional(from), "to": .optional(to)])
    }

    /// Whether the compositor shows a screen's frames: `recovering` (content waited unshown too long; its window
    /// was recreated), `failed` (that did not help), `ok` (frames are shown again).
    public static func screenHealth(screen: String, health: String) -> Event {
        Event(name: Name.screenHealth.rawValue, params: ["screen": .string(screen), "health": .string(health)])
    }

    /// Told by a transport to one subscriber that did not keep up: how many events it missed.
    public static func dropped(count: Int) -> Event {
        Event(name: Name.eventsDropped.rawValue, params: ["count": .integer(count)])
    }

    /// An image or a video is shown on `screen`: its kind (`image` or `video`), its size in pixels and, for a video,
    /// the decoder playing it.
    public static func mediaStarted(
        screen: String, path: String, kind: String, width: Int, height: Int, decoder: String?
    ) -> Event {
        Event(
            name: Name.mediaStarted.rawValue,
            params: [
                "screen": .string(screen), "path": .string(path), "kind": .string(kind), "width": .integer(width),
                "height": .integer(height), "decoder": .optional(decoder),
            ])
    }

    /// A video without `loop` reached its end on `screen` (its last frame stays).
    public static func mediaEnded(screen: String, path: String) -> Event {
        Event(name: Name.mediaEnded.rawValue, params: ["screen": .string(screen), "path": .string(path)])
    }

    /// An image or a video could not be shown on `screen`, or a video stopped playing: `error` says why.
    public static func mediaError(screen: String, path: String, error: String) -> Event {
        Event(
            name: Name.mediaError.rawValue,
            params: ["screen": .string(screen), "path": .string(path), "error": .string(error)])
    }

    /// A screen's playlist moved to item `index` (from 0), showing `source` until `until` (seconds since 1970).
    public static func playlistItem(screen: String, index: Int, source: String, until: Double) -> Event {
        Event(
            name: Name.playlistItem.rawValue,
            params: [
                "screen": .string(screen), "index": .integer(index), "source": .string(source), "until": .number(until),
            ])
    }

    /// An interrupt started on `screen` (`active`), playing until `ends` (seconds since 1970; nil: until cleared), or
    /// ended there (`ends`: when, by its time or cleared) and the screen shows what it showed before.
    public static func playlistInterrupt(screen: String, active: Bool, ends: Double?) -> Event {
        Event(
            name: Name.playlistInterrupt.rawValue,
            params: ["screen": .string(screen), "active": .bool(active), "ends": ends.map { .number($0) } ?? .null])
    }

    /// A screen's schedule turned it off or on; `power` is `"off (scheduled)"` or `"on"`.
    public static func powerChanged(screen: String, power: String) -> Event {
        Event(name: Name.powerChanged.rawValue, params: ["screen": .string(screen), "power": .string(power)])
    }

    /// The schedule `screen` follows changed (`schedule`: its name, nil for none), or what it asks for did: `now` is
    /// `{"playlist": NAME}`, `"off"` or null; `next`: when that changes again (seconds since 1970), nil for never.
    public static func scheduleChanged(screen: String, schedule: String?, now: JSONValue, next: Double?) -> Event {
        Event(
            name: Name.scheduleChanged.rawValue,
            params: [
                "screen": .string(screen), "schedule": .optional(schedule), "now": now,
                "next": next.map { .number($0) } ?? .null,
            ])
    }
}
