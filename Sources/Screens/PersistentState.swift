/// What survives a restart: roles and content modes set at run time (per monitor identity), the cards, and the
/// recent message log. Stored as JSON by ``StateStore``.
///
/// The keys of `roles` and `contents` are ``OutputIdentity/key`` strings. `version` lets a later format be
/// recognised; a file of another version is set aside rather than misread.
public struct PersistentState: Codable, Equatable, Sendable {
    public static let currentVersion = 1

    public var version: Int
    public var roles: [String: ScreenRole]
    public var contents: [String: ContentMode]
    public var cards: [Card]
    /// The recent messages, oldest first (bounded by the log that produced them).
    public var messages: [LoggedMessage]

    public init(
        roles: [String: ScreenRole] = [:], contents: [String: ContentMode] = [:], cards: [Card] = [],
        messages: [LoggedMessage] = []
    ) {
        version = Self.currentVersion
        self.roles = roles
        self.contents = contents
        self.cards = cards
        self.messages = messages
    }

    /// The run-time roles and modes, as ``RoleAssigner`` takes them.
    public var memory: ScreenMemory { ScreenMemory(roles: roles, contents: contents) }
}
