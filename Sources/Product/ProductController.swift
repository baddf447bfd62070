import Foundation
import Logging
import Messaging
import Outputs
import Screens
import SystemCalls

/// Multiscreen's behaviour, apart from any compositor, transport or renderer: it owns the screen model (roles,
/// content modes, cards, the message log), the state file and the controller UI's panel, executes typed requests,
/// and says for every step what it answered, which events it caused and what changed.
///
/// Pure Swift: the display thread feeds it requests, output changes and keys, and acts on each ``Outcome``
/// (replies to the request's sink, events to every sink, redraws, a save soon). Unit-tested in milliseconds.
///
/// One file per area, each an extension: the config (`+Config`), messages and cards (`+Messages`), roles and outputs
/// (`+Roles`), web pages (`+Web`), images, videos and playlists (`+Media`), the phone remote (`+Remote`), the
/// controller UI (`+ControllerUI`), the state file (`+State`), and what a step asks of the screens
/// (``ScreenUpdates``). This file holds the state they share and the one entry point of requests.
public struct ProductController {
    public internal(set) var model: ScreenModel
    public internal(set) var panel = ControllerPanel()
    /// Where the state is written; the config and state it started from were read by ``load(configPath:statePath:remoteOfferPlacement:logger:)``.
    public let store: StateStore
    /// The config file, read again by ``reloadConfig()``; whether it was named explicitly (then it must exist).
    var configSource: (path: String, mustExist: Bool)?
    /// Replies to requests that carried a client's request id (retries are answered, not applied twice).
    var retries: [Int: RetryBook] = [:]
    /// The screens a `media.show` with `audio` is being read for: how many such reads, and until when (``MonotonicClock``
    /// ns) they hold the sound (``soundReadLease``). Another screen's request for sound is refused meanwhile, so two
    /// requests sent together never both start a pipeline with sound.
    var soundReads: [String: (count: Int, until: UInt64)] = [:]
    /// Which config is in force and why (`status` → `config`).
    public internal(set) var configStanding = ConfigStanding(path: RoleConfig.defaultPath(), source: .defaults)
    /// The persistent state changed since it was last written.
    public internal(set) var hasUnsavedState = false
    /// Counts the steps that changed the persistent state: a write of the state as of one count leaves the state
    /// unsaved when a later step changed it while the file was written.
    public internal(set) var stateChanges = 0
    /// Writes of the state file so far, and how the last one went, for `status`: a full or read-only disk must
    /// show, not only in the log.
    public internal(set) var saves = (written: 0, failed: 0, lastError: String?.none)
    /// What external screens show for the phone remote (a QR code and its short code), nil for nothing.
    public internal(set) var remoteOffer: RemoteOffer?
    /// Until when every screen shows its name over its content (`screen.identify`); nil: not now.
    public internal(set) var identifyingUntil: Date?
    /// Where that offer goes, and on which screens (`[remote]` `qr_position` and `qr_screens`).
    public let remoteOfferPlacement: RemoteOfferPlacement
    /// Proof of play: the playlist items each screen showed (`playlist.history`), kept beside the state file.
    public internal(set) var playHistory: PlayHistory
    let logger: Logger

    public init(
        model: ScreenModel, store: StateStore, remoteOfferPlacement: RemoteOfferPlacement = RemoteOfferPlacement(),
        logger: Logger = Logger(label: "multiscreen")
    ) {
        self.model = model
        self.store = store
        self.remoteOfferPlacement = remoteOfferPlacement
        playHistory = PlayHistory(path: PlayHistory.path(besideState: store.path))
        self.logger = logger
    }

    /// The connected outputs, in natural name order (the order of the controller's screens list).
    public var outputs: [OutputInfo] { model.roles.outputs }

    /// What the screen on this output shows.
    public func kind(of registryName: UInt32) -> ScreenKind { model.kind(of: registryName) }

    /// Whether the screen on this output is on, as its schedule says.
    public func power(of registryName: UInt32) -> ScreenPower { model.power(of: registryName) }

    // MARK: - Requests

    /// Executes one request.
    /// - Parameters:
    ///   - requestID: the client's id for it: a request whose id was answered in the last ten minutes gets that
    ///     reply again and is not applied again (``RetryBook``). Queries (`status`, `outputs`) are not kept.
    ///   - producer: the producer it came through: each keeps its own ids, so a busy one cannot push another's
    ///     out of the book.
    ///   - now: ``MonotonicClock`` nanoseconds (injected by tests).
    ///   - vitals: asked only by `status`, for what the display thread owns.
    public mutating func execute(
        _ message: Message, requestID: String? = nil, producer: Int = 0, now: UInt64 = MonotonicClock.nanoseconds(),
        vitals: () -> Vitals = { Vitals() }
    ) -> Outcome {
        let kept = requestID.flatMap { message.isQuery ? nil : $0 }
        if let kept, let reply = retries[producer]?.reply(to: kept, now: now) {
            logger.debug("request \(kept.logSafe) was answered before: the same reply, not applied again")
            return Outcome(reply: reply)
        }
        forgetMediaStart(before: message)
        var outcome: Outcome
        do throws(MessageError) {
            outcome = try perform(message, now: now, vitals: vitals)
            outcome.mediaToRead?.requestID = kept
            outcome.mediaToRead?.producer = producer
        } catch {
            logger.notice("refused \(message.method.rawValue): \(error.message.logSafe)")
            outcome = Outcome(reply: .error(error))
        }
        if let kept, let reply = outcome.reply {
            retries[producer, default: RetryBook()].remember(reply, for: kept, now: now)
            // Producers come and go (a page's, with every page): books with nothing left in their window go too.
            if retries.count > 8 {
                for key in retries.keys {
                    retries[key]?.forgetExpired(now: now)
                    if retries[key]?.isEmpty == true { retries[key] = nil }
                }
            }
        }
        return outcome
    }

    /// A later request for what a screen shows wins over a `media.show` waiting for its start there, whether it is
    /// carried out or refused. (`media.stop` forgets it itself: what it forgot is its answer.)
    private mutating func forgetMediaStart(before message: Message) {
        switch message {
        case .setRole(let screen, _, _), .setContent(let screen, _), .openWeb(let screen, _), .closeWeb(let screen),
            .showMedia(let screen, _, _, _, _, _, _), .setPlaylist(let screen, _), .clearPlaylist(let screen):
            model.cancelMediaStart(onScreen: screen)
        case .resetRole(let screen):
            model.cancelMediaStart(onScreen: screen)
        default:
            break
        }
    }

    /// One request, by its method: each area's extension does it.
    private mutating func perform(_ message: Message, now: UInt64, vitals: () -> Vitals) throws(MessageError)
        -> Outcome
    {
        switch message {
        case .send(let text, let screen, let ttl): return try send(text: text, screen: screen, ttl: ttl)
        case .openCard(let screen, let text): return try openCard(screen: screen, text: text)
        case .closeCard(let screen): return try closeCard(screen: screen)
        case .reopenCard(let id, let screen): return try reopenCard(id: id, screen: screen)
        case .discardCard(let id): return try discardCard(id: id)
        case .setRole(let screen, let role, let force): return try setRole(screen: screen, role: role, force: force)
        case .resetRole(let screen): return try resetRole(screen: screen)
        case .setContent(let screen, let mode): return try setContent(screen: screen, mode: mode)
        case .clearMessages(let screen): return try clearMessages(screen: screen)
        case .status:
            return Outcome(reply: .result(method: .status, result: StatusReport(self, vitals: vitals()).json))
        case .outputs:
            return Outcome(
                reply: .result(method: .outputs, result: ["outputs": .array(outputs.map(StatusReport.json))]))
        case .openWeb(let screen, let url): return try openWeb(screen: screen, url: url)
        case .closeWeb(let screen): return try closeWeb(screen: screen)
        case .reloadWeb(let screen): return try reloadWeb(screen: screen)
        case .remoteOffer(let link, let code, let locked):
            return takeRemoteOffer(link: link, code: code, locked: locked)
        case .remoteActivity(let activity): return remoteActivity(activity)
        case .showMedia(let screen, let path, let fit, let rotation, let loop, let audio, let at):
            return try showMedia(
                screen: screen, path: path, fit: fit, rotation: rotation, loop: loop, audio: audio, at: at, now: now)
        case .setPlaylist(let screen, let playlist): return try setPlaylist(screen: screen, playlist: playlist)
        case .clearPlaylist(let screen): return try clearPlaylist(screen: screen)
        case .interruptPlaylist(let screen, let request): return try interruptPlaylist(screen: screen, request: request)
        case .playlistHistory(let screen, let limit): return playlistHistory(screen: screen, limit: limit)
        case .showPlaylist(let screen): return try showPlaylist(screen: screen)
        case .stepPlaylist(let screen, let step, let at): return try stepPlaylist(screen: screen, step: step, at: at)
        case .showSchedule(let screen): return try showSchedule(screen: screen)
        case .setSchedule(let screen, let schedule): return try setSchedule(screen: screen, name: schedule)
        case .stopMedia(let screen): return try stopMedia(screen: screen)
        case .identifyScreens(let seconds): return identifyScreens(for: seconds)
        case .captureScreen(let screen, let path): return try captureScreen(screen: screen, path: path)
        }
    }

    // MARK: - Helpers

    /// The assignment's changes as events and log lines, its warnings logged.
    func absorb(_ assignment: Assignment, into outcome: inout Outcome) {
        // Not a change of the persistent state by itself: what was set at run time (and is saved) changes only
        // through a request, which marks the state itself; an output coming or going reassigns without it.
        for change in assignment.changes {
            logger.info("role change: \(String(describing: change).logSafe)")
            outcome.events.append(Self.event(for: change))
        }
        for warning in assignment.warnings { logger.warning("\(warning.logSafe)") }
        if !assignment.changes.isEmpty {
            for override in assignment.overrides { logger.info("\(String(describing: override).logSafe)") }
        }
        outcome.changes.assignment = outcome.changes.assignment || !assignment.changes.isEmpty
        outcome.changes.controllerUI = true
    }

    /// ``absorb(_:into:)`` of the model's assignment if the step made a new one since `before`: a request that set a
    /// mode the screen already had reassigns nothing, and the assignment there still carries the changes of the step
    /// that made it, which must not be told twice.
    func absorbReassignment(since before: Assignment, into outcome: inout Outcome) {
        guard model.assignment != before else {
            outcome.changes.controllerUI = true
            return
        }
        absorb(model.assignment, into: &outcome)
    }

    /// Messages and cards go to external screens: one aimed at the controller's screen would be shown nowhere.
    func refuseController(_ screen: String, for what: String) throws(MessageError) {
        guard let controller = model.assignment.controller,
            outputs.first(where: { $0.registryName == controller })?.displayName == screen
        else { return }
        // Only a message may name no screen (for all of them); a card always names one.
        let hint = what == "messages" ? "name an external screen, or none for all" : "name an external screen"
        throw MessageError(.refused, "\(screen) shows the controller UI, not \(what): \(hint)")
    }

    static func event(for change: RoleChange) -> Event {
        switch change {
        case .role(let output, let from, let to):
            return .roleChanged(screen: output, from: from?.rawValue, to: to?.rawValue)
        case .controllerMoved(let from, let to, let standIn):
            return .controllerMoved(from: from, to: to, standIn: standIn)
        case .content(let output, let from, let to):
            return .contentChanged(screen: output, from: from?.rawValue, to: to?.rawValue)
        }
    }

    /// The connected output named `screen`, or `invalidParams` listing the connected ones.
    func connected(_ screen: String) throws(MessageError) -> OutputInfo {
        try invalidParams { () throws(UnknownScreenError) in try model.roles.output(named: screen) }
    }

    /// Runs a model call whose refusal is the client's mistake: reported as `invalidParams` with its description.
    func invalidParams<T, E: Error & CustomStringConvertible>(_ body: () throws(E) -> T) throws(MessageError)
        -> T
    {
        do {
            return try body()
        } catch {
            throw MessageError(.invalidParams, error.description)
        }
    }
}
