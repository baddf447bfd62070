import Foundation

/// The recent messages, bounded so that an unattended kiosk fed by a script never grows without limit: past
/// ``capacity`` the oldest message is dropped. Ids increase monotonically (also across a restart, continuing
/// after the restored ones), so a screen can tell what it has already shown.
public struct MessageLog: Equatable, Sendable {
    public static let defaultCapacity = 200

    public let capacity: Int
    /// Oldest first (appending is cheap; readers ask for newest first).
    private var entries: [LoggedMessage]
    private var nextID: UInt64

    /// - Parameters:
    ///   - capacity: the most messages kept (at least 1).
    ///   - restoring: messages from the state file, in any order; the newest `capacity` are kept.
    public init(capacity: Int = MessageLog.defaultCapacity, restoring messages: [LoggedMessage] = []) {
        self.capacity = max(capacity, 1)
        let ordered = messages.sorted { $0.id < $1.id }
        entries = Array(ordered.suffix(self.capacity))
        nextID = (ordered.last?.id ?? 0) + 1
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    /// Every message, newest first.
    public var newestFirst: [LoggedMessage] { entries.reversed() }

    /// Messages addressed to `screenName` or to every screen, newest first: what that screen shows in `messages`
    /// mode.
    public func messages(for screenName: String) -> [LoggedMessage] {
        entries.reversed().filter { $0.isShown(on: screenName) }
    }

    /// Logs a message. `screen` is the output name it was addressed to, nil for all screens; `expiresAt` when it
    /// stops being shown (nil: never by itself).
    @discardableResult
    public mutating func append(text: String, screen: String?, at time: Date, expiresAt: Date? = nil) -> LoggedMessage {
        let message = LoggedMessage(id: nextID, text: text, receivedAt: time, screen: screen, expiresAt: expiresAt)
        nextID += 1
        entries.append(message)
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        return message
    }

    /// Clears what `screenName` shows (nil: every message, the whole log). Messages addressed to that screen
    /// alone are removed; messages for every screen are hidden there and stay on the others.
    /// - Returns: how many messages stopped being shown there.
    @discardableResult
    public mutating func clear(screen screenName: String?) -> Int {
        guard let screenName else {
            defer { entries.removeAll() }
            return entries.count
        }
        let shown = entries.filter { $0.isShown(on: screenName) }.count
        entries.removeAll { $0.screen == screenName }
        for index in entries.indices where entries[index].screen == nil {
            entries[index].hiddenOn.insert(screenName)
        }
        return shown
    }

    /// Removes the messages whose time is up. - Returns: the removed messages.
    public mutating func removeExpired(at now: Date) -> [LoggedMessage] {
        let expired = entries.filter { $0.expiresAt.map { $0 <= now } ?? false }
        if !expired.isEmpty { entries.removeAll { $0.expiresAt.map { $0 <= now } ?? false } }
        return expired
    }

    /// The earliest time a message is due to expire.
    public var nextExpiry: Date? { entries.compactMap(\.expiresAt).min() }
}
