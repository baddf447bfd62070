import Outputs

/// Everything that reaches the screens, whoever sends it: the controller's Send button, a phone over the network,
/// the CLI, a benchmark probe. The display thread applies these in order; the JSON form at the edges is
/// ``MessageCodec``'s business, the in-ring form ``MessageSlot``'s.
public enum Message: Equatable, Hashable, Sendable {
    /// Show `text`, on the screen named `screen` or, without one, wherever the product sends text by default; for
    /// `ttl` seconds if given (at most ``maximumTTL``), else until newer messages push it out.
    case send(text: String, screen: String?, ttl: Double? = nil)
    /// Open a card showing `text` on `screen`.
    case openCard(screen: String, text: String)
    /// Close the card on `screen`.
    case closeCard(screen: String)
    /// Open the card `id` (waiting in the controller's list, or open elsewhere) on `screen`.
    case reopenCard(id: UInt32, screen: String)
    /// Remove the card `id` for good, waiting or open.
    case discardCard(id: UInt32)
    /// Give `screen` a role (what a role means is the display thread's business); `force` allows a change that
    /// leaves no screen showing the controller UI.
    case setRole(screen: String, role: String, force: Bool = false)
    /// Forget the roles and content modes set at run time for `screen` (nil: for every monitor), so the config's
    /// rules apply again.
    case resetRole(screen: String?)
    /// Set what `screen` shows when it is not the controller: a content mode by name.
    case setContent(screen: String, mode: String)
    /// Clear the messages `screen` shows (nil: clear the log, every screen).
    case clearMessages(screen: String?)
    /// Ask for the application's status.
    case status
    /// Ask for the outputs and the screens on them.
    case outputs
    /// Internal (the phone remote's own producer, never the wire): what external screens show for the remote. A
    /// `link` to put in a QR code with its short `code`; an empty link hides it (someone is in control, or the
    /// remote is off); `locked` says code entry is locked after too many wrong codes.
    case remoteOffer(link: String, code: String, locked: Bool)
    /// Show the web page at `url` on `screen` (a `file://`, `http://` or `https://` URL).
    case openWeb(screen: String, url: String)
    /// Stop showing a web page on `screen`.
    case closeWeb(screen: String)
    /// Load the page on `screen` again.
    case reloadWeb(screen: String)
    /// Internal (the phone remote's own producer, never the wire): something happened to remote control, told to
    /// event subscribers as a `remote.<kind>` event (``RemoteActivity``).
    case remoteActivity(RemoteActivity)
    /// Show the image or video in the file at `path` on `screen` (an external screen), filling it as `fit` says, turned
    /// by `rotation`; a video with `loop` starts again at its end, else it stays on its last frame. With `at` (seconds
    /// since 1970) the file shows at that moment of the wall clock and a video plays from there on the clock: requests
    /// given the same `at` switch their screens together and their videos play in step (without it, as soon as read).
    case showMedia(
        screen: String, path: String, fit: MediaFit = .contain, rotation: MediaRotation = .none, loop: Bool = false,
        audio: Bool = false, at: Double? = nil)
    /// Stop showing an image or a video on `screen`: it shows messages again.
    case stopMedia(screen: String)
    /// Play `playlist` on `screen` (an external screen), its items in turn as the wall clock says.
    case setPlaylist(screen: String, playlist: Playlist)
    /// Stop the playlist on `screen`: it shows messages again.
    case clearPlaylist(screen: String)
    /// Play something over whatever `screen` (an external screen) shows, for a while or until cleared, or end the
    /// interrupt there (``InterruptRequest``).
    case interruptPlaylist(screen: String, request: InterruptRequest)
    /// Proof of play: the newest `limit` playlist items shown (on `screen`, or on every screen), oldest first.
    case playlistHistory(screen: String?, limit: Int)
    /// `playlist.show`: the playlist a screen plays, where it is, and the steps taken on it.
    case showPlaylist(screen: String)
    /// `playlist.next`, `playlist.previous`, `playlist.pause`, `playlist.resume` on the playlist a screen plays, taken
    /// at `at` (seconds since 1970; nil: when it arrives). The CLI gives several screens the same `at`, so screens that
    /// switched together go on switching together.
    case stepPlaylist(screen: String, step: PlaylistStep, at: Double?)
    /// `schedule.show`: the schedule each screen (or one) follows, what it asks for now and when that changes.
    case showSchedule(screen: String?)
    /// `schedule.set`: a screen follows the config's `[[schedule]]` named `schedule` (nil: its rule's again).
    case setSchedule(screen: String, schedule: String?)
    /// Show every screen's name, mode and role over what it shows, for `seconds` (then it goes by itself): which
    /// connector is which panel, when wiring a wall.
    case identifyScreens(seconds: Double)
    /// Write a PNG of what `screen` shows to `path` (an absolute path on the kiosk).
    case captureScreen(screen: String, path: String?)

    /// The largest text, in UTF-8 bytes, a message may carry (64 KiB): a long card, far below a text slab's size.
    public static let maximumTextBytes = 64 * 1024
    /// The largest screen or role name, in UTF-8 bytes.
    public static let maximumNameBytes = 256
    /// The longest a message may be asked to stay, in seconds (30 days): what fits the ring slot in milliseconds.
    public static let maximumTTL: Double = 30 * 24 * 3600
    /// How long `screen.identify` may show the screens' names, in seconds, and how long when not said.
    public static let identifySeconds: ClosedRange<Double> = 1...60
    public static let defaultIdentifySeconds: Double = 5
    /// The most records `playlist.history` answers with (what the kiosk keeps in memory), and how many when not said.
    public static let mostHistoryRecords = 1000
    public static let defaultHistoryRecords = 100

    public var method: MessageMethod {
        switch self {
        case .send: .send
        case .openCard: .openCard
        case .closeCard: .closeCard
        case .reopenCard: .reopenCard
        case .discardCard: .discardCard
        case .setRole: .setRole
        case .resetRole: .resetRole
        case .setContent: .setContent
        case .clearMessages: .clearMessages
        case .status: .status
        case .outputs: .outputs
        case .remoteOffer: .remoteOffer
        case .openWeb: .openWeb
        case .closeWeb: .closeWeb
        case .reloadWeb: .reloadWeb
        case .remoteActivity: .remoteActivity
        case .showMedia: .showMedia
        case .stopMedia: .stopMedia
        case .setPlaylist: .setPlaylist
        case .clearPlaylist: .clearPlaylist
        case .interruptPlaylist: .interruptPlaylist
        case .playlistHistory: .playlistHistory
        case .showPlaylist: .showPlaylist
        case .stepPlaylist(_, let step, _): MessageMethod(step)
        case .showSchedule: .showSchedule
        case .setSchedule: .setSchedule
        case .identifyScreens: .identifyScreens
        case .captureScreen: .captureScreen
        }
    }

    /// Whether this message may name files on the kiosk: a method that always can (``MessageMethod/isLocalOnly``),
    /// or an interrupt with items of its own. Only callers given media directories may send it.
    public var namesFiles: Bool {
        if case .interruptPlaylist(_, let request) = self { return request.hasItems }
        return method.isLocalOnly
    }

    /// Writes a file on the kiosk (`screen.capture` with a `path`): the local socket's user's alone, never granted to
    /// anyone else, whatever their config or media directories say (a write there could replace the media itself).
    /// Without a path the capture comes back in the reply, which any caller granted `screen.capture` may ask for.
    public var writesFiles: Bool {
        if case .captureScreen(_, let path?) = self { return !path.isEmpty }
        return false
    }

    /// A request whose only effect is its reply (`status`, `outputs`): when nobody is left to read the reply,
    /// answering it is wasted work.
    public var isQuery: Bool {
        switch self {
        case .status, .outputs, .playlistHistory, .showPlaylist, .showSchedule, .captureScreen: true
        default: false
        }
    }

    /// Checks the documented size limits; every path into a ring calls this.
    public func validate() throws(MessageError) {
        switch self {
        case .send(let text, let screen, let ttl):
            try Self.check(text: text)
            if let screen { try Self.check(name: screen, field: "screen") }
            if let ttl, !(ttl > 0 && ttl <= Self.maximumTTL) {
                throw MessageError(
                    .invalidParams, "\"ttl\" must be more than 0 and at most \(Int(Self.maximumTTL)) seconds")
            }
        case .openCard(let screen, let text):
            try Self.check(name: screen, field: "screen")
            try Self.check(text: text)
        case .openWeb(let screen, let url):
            try Self.check(name: screen, field: "screen")
            try Self.check(text: url)
            if url.isEmpty { throw MessageError(.invalidParams, "\"url\" must not be empty") }
        case .showMedia(let screen, let path, _, _, _, _, let at):
            try Self.check(name: screen, field: "screen")
            try Self.check(text: path)
            if path.isEmpty { throw MessageError(.invalidParams, "\"path\" must not be empty") }
            if path.utf8.contains(0) { throw MessageError(.invalidParams, "\"path\" must not contain NUL") }
            if let at, !(at.isFinite && at > 0) {
                throw MessageError(.invalidParams, "\"at\" must be a moment in seconds since 1970")
            }
        case .setPlaylist(let screen, let playlist):
            try Self.check(name: screen, field: "screen")
            if let problem = Playlist.problem(items: playlist.items) {
                throw MessageError(.invalidParams, "\"items\": \(problem)")
            }
            guard playlist.epoch.isFinite else { throw MessageError(.invalidParams, "\"epoch\" must be a number") }
            guard (0..<Playlist.mostItems).contains(playlist.offset) else {
                throw MessageError(
                    .invalidParams, "\"offset\" must be a whole number from 0 to \(Playlist.mostItems - 1)")
            }
            try Self.check(text: PlaylistText.encode(playlist))
        case .interruptPlaylist(let screen, let request):
            try Self.check(name: screen, field: "screen")
            try Self.check(interrupt: request)
        case .closeCard(let screen), .reopenCard(_, let screen), .closeWeb(let screen), .reloadWeb(let screen),
            .stopMedia(let screen), .clearPlaylist(let screen), .showPlaylist(let screen):
            try Self.check(name: screen, field: "screen")
        case .stepPlaylist(let screen, _, let at):
            try Self.check(name: screen, field: "screen")
            if let at, !at.isFinite { throw MessageError(.invalidParams, "\"at\" must be a number") }
        case .showSchedule(let screen):
            if let screen { try Self.check(name: screen, field: "screen") }
        case .setSchedule(let screen, let schedule):
            try Self.check(name: screen, field: "screen")
            if let schedule {
                try Self.check(name: schedule, field: "schedule")
                if schedule.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                    throw MessageError(.invalidParams, "\"schedule\" must not contain control characters")
                }
            }
        case .discardCard:
            break
        case .setRole(let screen, let role, _):
            try Self.check(name: screen, field: "screen")
            try Self.check(name: role, field: "role")
        case .setContent(let screen, let mode):
            try Self.check(name: screen, field: "screen")
            try Self.check(name: mode, field: "mode")
        case .resetRole(let screen), .clearMessages(let screen):
            if let screen { try Self.check(name: screen, field: "screen") }
        case .playlistHistory(let screen, let limit):
            if let screen { try Self.check(name: screen, field: "screen") }
            guard (1...Self.mostHistoryRecords).contains(limit) else {
                throw MessageError(.invalidParams, "\"limit\" must be from 1 to \(Self.mostHistoryRecords)")
            }
        case .captureScreen(let screen, let path):
            try Self.check(name: screen, field: "screen")
            if let path {
                try Self.check(text: path)
                guard path.hasPrefix("/"), !path.utf8.contains(0) else {
                    throw MessageError(.invalidParams, "\"path\" must be an absolute path without NUL")
                }
            }
        case .identifyScreens(let seconds):
            guard Self.identifySeconds.contains(seconds) else {
                throw MessageError(.invalidParams, "\"seconds\" must be from 1 to 60")
            }
        case .status, .outputs:
            break
        case .remoteOffer(let link, let code, _):
            try Self.check(text: link)
            if code.utf8.count > Self.maximumNameBytes {
                throw MessageError(.invalidParams, "a remote code is at most \(Self.maximumNameBytes) bytes")
            }
        case .remoteActivity(let activity):
            if activity.detail.utf8.count > Self.maximumNameBytes {
                throw MessageError(
                    .invalidParams, "a remote activity's detail is at most \(Self.maximumNameBytes) bytes")
            }
        }
    }

    private static func check(text: String) throws(MessageError) {
        let count = text.utf8.count
        if count > maximumTextBytes {
            throw MessageError(
                .textTooLong, "text is \(count) UTF-8 bytes, the limit is \(maximumTextBytes)")
        }
    }

    private static func check(interrupt request: InterruptRequest) throws(MessageError) {
        guard case .start(let source, _, let seconds, let epoch) = request else { return }
        switch source {
        case .items(let items):
            if let problem = Playlist.problem(items: items) {
                throw MessageError(.invalidParams, "\"items\": \(problem)")
            }
        case .named(let name):
            try check(name: name, field: "playlist")
            if name.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                throw MessageError(.invalidParams, "\"playlist\" must not contain control characters")
            }
        }
        if let seconds, !InterruptRequest.seconds.contains(seconds) {
            throw MessageError(.invalidParams, "\"seconds\" must be from 1 to 86400")
        }
        if let epoch, !epoch.isFinite { throw MessageError(.invalidParams, "\"epoch\" must be a number") }
        try check(text: InterruptText.encode(request))
    }

    private static func check(name: String, field: String) throws(MessageError) {
        if name.isEmpty { throw MessageError(.invalidParams, "\"\(field)\" must not be empty") }
        let count = name.utf8.count
        if count > maximumNameBytes {
            throw MessageError(
                .invalidParams, "\"\(field)\" is \(count) UTF-8 bytes, the limit is \(maximumNameBytes)")
        }
    }
}

/// The methods of the JSON protocol, named as they appear on the wire.
public enum MessageMethod: String, CaseIterable, Sendable {
    case send = "send"
    case openCard = "card.open"
    case closeCard = "card.close"
    case reopenCard = "card.reopen"
    case discardCard = "card.discard"
    case setRole = "role.set"
    case resetRole = "role.reset"
    case setContent = "content.set"
    case clearMessages = "messages.clear"
    case status = "status"
    case outputs = "outputs"
    /// Stream events to this connection from now on: answered by the transport, which holds the subscription,
    /// never sent through a ring (``Request/subscribeEvents``).
    case subscribeEvents = "events.subscribe"
    /// Internal: ``Message/remoteOffer(link:code:locked:)``. Unknown on the wire (`methodNotFound`).
    case remoteOffer = "remote.offer"
    case openWeb = "web.open"
    case closeWeb = "web.close"
    case reloadWeb = "web.reload"
    case showMedia = "media.show"
    case stopMedia = "media.stop"
    case setPlaylist = "playlist.set"
    case clearPlaylist = "playlist.clear"
    case interruptPlaylist = "playlist.interrupt"
    case playlistHistory = "playlist.history"
    case showPlaylist = "playlist.show"
    case nextPlaylistItem = "playlist.next"
    case previousPlaylistItem = "playlist.previous"
    case pausePlaylist = "playlist.pause"
    case resumePlaylist = "playlist.resume"
    case showSchedule = "schedule.show"
    case setSchedule = "schedule.set"
    /// Internal: ``Message/remoteActivity(_:)``. Unknown on the wire (`methodNotFound`).
    case remoteActivity = "remote.activity"
    case identifyScreens = "screen.identify"
    case captureScreen = "screen.capture"

    /// The method that takes `step` (``Message/stepPlaylist(screen:step:at:)``).
    public init(_ step: PlaylistStep) {
        switch step {
        case .next: self = .nextPlaylistItem
        case .previous: self = .previousPlaylistItem
        case .pause: self = .pausePlaylist
        case .resume: self = .resumePlaylist
        }
    }

    /// The step this method takes on a playlist, if it is one of `playlist.next|previous|pause|resume`.
    public var playlistStep: PlaylistStep? {
        switch self {
        case .nextPlaylistItem: .next
        case .previousPlaylistItem: .previous
        case .pausePlaylist: .pause
        case .resumePlaylist: .resume
        default: nil
        }
    }

    /// Posted by Multiscreen's own parts only, never accepted from a client nor named to one.
    public var isInternal: Bool { self == .remoteOffer || self == .remoteActivity }

    /// Names a file on the kiosk (`media.show`, `playlist.set`): granted to the local socket's user only, who may read any file they
    /// can; never to the fleet, a phone or a page, whatever their config grants. `playlist.interrupt` names files only
    /// with items of its own (``Message/namesFiles``), so it may be granted: its items are refused where files are.
    public var isLocalOnly: Bool { self == .showMedia || self == .setPlaylist }

}

/// A decoded request line: a ``Message`` for the display thread, or a request the transport answers itself.
public enum Request: Equatable, Sendable {
    case message(Message)
    case subscribeEvents
}

/// The form a request came in, which its reply must take: Multiscreen's own `{"method", "params"}` →
/// `{"method", "result"}`; the same with the client's `id`, `{"id", "method", "params"}` → `{"id", "method",
/// "result"}` (a client that pipelines, or shares a reply channel as the fleet's reply topic is shared, pairs replies
/// by it); or JSON-RPC 2.0, `{"jsonrpc": "2.0", "id", "method", "params"}` → `{"jsonrpc": "2.0", "id", "result"}`. A
/// JSON-RPC request without an `id` is a notification: carried out, never answered (JSON-RPC 2.0, section 4.1).
///
/// The id travels as the parsed value it came in as, so a transport answers with it without writing JSON itself.
public enum Envelope: Equatable, Sendable {
    case plain
    case tagged(id: JSONValue)
    case jsonRPC(id: JSONValue?)

    /// The client's id, if the request carried one (a JSON-RPC notification's is nil).
    public var id: JSONValue? {
        switch self {
        case .plain: nil
        case .tagged(let id): id
        case .jsonRPC(let id): id.flatMap { $0 == .null ? nil : $0 }
        }
    }
}

/// A message as the display thread receives it.
public struct ReceivedMessage: Sendable {
    public var message: Message
    /// ``MonotonicClock`` nanoseconds when the producer enqueued it, so latency can be measured at any later point.
    public var enqueuedAt: UInt64
    /// ``MessageProducer/id`` of the producer that sent it (for tests and benchmarks that count per producer).
    public var producerID: Int
    /// Where the reply goes: the sink the producer was made with; nil when nobody reads replies (benchmarks).
    public var replyTo: (any ReplySink)?
    /// The client's id for this request, if it gave one: a request whose id was seen is answered with the first
    /// one's reply, not applied again.
    public var requestID: String?

    public init(
        message: Message, enqueuedAt: UInt64, producerID: Int, replyTo: (any ReplySink)? = nil,
        requestID: String? = nil
    ) {
        self.message = message
        self.enqueuedAt = enqueuedAt
        self.producerID = producerID
        self.replyTo = replyTo
        self.requestID = requestID
    }
}
