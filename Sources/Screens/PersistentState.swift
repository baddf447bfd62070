import Outputs

/// What survives a restart: roles and content modes set at run time (per monitor identity), the cards, the
/// recent message log, and the pages opened or closed at run time (per screen name, as `web.open` names them).
/// Stored as JSON by ``StateStore``.
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
    /// Pages opened at run time, URL by screen name; absent (nil) in files written before pages were saved, and
    /// when there are none.
    public var pages: [String: String]?
    /// Screens whose configured page was closed at run time (they show their mode's content instead).
    public var closedPages: [String]?
    /// Images and videos shown at run time (`media.show`), by screen name; absent when there are none.
    public var media: [String: ShownMedia]?
    /// Screens whose configured image or video was stopped at run time.
    public var stoppedMedia: [String]?
    /// Playlists set at run time (`playlist.set`), by screen name; absent when there are none.
    public var playlists: [String: Playlist]?
    /// Interrupts (`playlist.interrupt`) not ended yet, by screen name; absent when there are none.
    public var interrupts: [String: PlaylistInterrupt]?
    /// Steps taken on playlists (`playlist.next`, `pause`, …), by screen name; absent when there are none.
    public var steering: [String: PlaylistSteering]?
    /// Schedules chosen at run time (`schedule.set`), a `[[schedule]]`'s name by screen name; absent when none.
    public var schedules: [String: String]?
    /// The measured lengths of the videos that play their own (items without seconds), by source; absent when none.
    public var videoLengths: [String: Double]?

    public init(
        roles: [String: ScreenRole] = [:], contents: [String: ContentMode] = [:], cards: [Card] = [],
        messages: [LoggedMessage] = [], pages: [String: String] = [:], closedPages: Set<String> = [],
        media: [String: ShownMedia] = [:], stoppedMedia: Set<String> = [], playlists: [String: Playlist] = [:],
        interrupts: [String: PlaylistInterrupt] = [:], steering: [String: PlaylistSteering] = [:],
        schedules: [String: String] = [:], videoLengths: [String: Double] = [:]
    ) {
        version = Self.currentVersion
        self.roles = roles
        self.contents = contents
        self.cards = cards
        self.messages = messages
        self.pages = pages.isEmpty ? nil : pages
        self.closedPages = closedPages.isEmpty ? nil : closedPages.sorted()
        self.media = media.isEmpty ? nil : media
        self.stoppedMedia = stoppedMedia.isEmpty ? nil : stoppedMedia.sorted()
        self.playlists = playlists.isEmpty ? nil : playlists
        self.interrupts = interrupts.isEmpty ? nil : interrupts
        self.steering = steering.isEmpty ? nil : steering
        self.schedules = schedules.isEmpty ? nil : schedules
        self.videoLengths = videoLengths.isEmpty ? nil : videoLengths
    }

    /// The run-time roles and modes, as ``RoleAssigner`` takes them.
    public var memory: ScreenMemory { ScreenMemory(roles: roles, contents: contents) }
}
