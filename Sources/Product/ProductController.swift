import ConfigFile
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
public struct ProductController {
    public private(set) var model: ScreenModel
    public private(set) var panel = ControllerPanel()
    /// Where the state is written; the config and state it started from were read by ``load(configPath:statePath:logger:)``.
    public let store: StateStore
    /// The config file, read again by ``reloadConfig()``; whether it was named explicitly (then it must exist).
    private var configSource: (path: String, mustExist: Bool)?
    /// Replies to requests that carried a client's request id (retries are answered, not applied twice).
    private var retries: [Int: RetryBook] = [:]
    /// Which config is in force and why (`status` → `config`).
    public private(set) var configStanding = ConfigStanding(path: RoleConfig.defaultPath(), source: .defaults)
    /// The persistent state changed since it was last written.
    public private(set) var hasUnsavedState = false
    /// Writes of the state file so far, and how the last one went, for `status`: a full or read-only disk must
    /// show, not only in the log.
    public private(set) var saves = (written: 0, failed: 0, lastError: String?.none)
    /// What external screens show for the phone remote (a QR code and its short code), nil for nothing.
    public private(set) var remoteOffer: RemoteOffer?
    private let logger: Logger

    public init(model: ScreenModel, store: StateStore, logger: Logger = Logger(label: "multiscreen")) {
        self.model = model
        self.store = store
        self.logger = logger
    }

    /// Reads the config and the restored state. Neither can stop Multiscreen: a corrupt state file is set aside by
    /// ``StateStore`` and reported; a broken config is reported and replaced by the last good one, or, with none,
    /// by the fail-safe (``ConfigStanding/Source/failSafe``): never by the defaults, which would put the controller
    /// UI on the first output, a screen the broken file's rules may have made public.
    public static func load(configPath: String?, statePath: String?, logger: Logger) -> ProductController {
        let source = (path: configPath ?? RoleConfig.defaultPath(), mustExist: configPath != nil)
        let store = StateStore(path: statePath ?? StateStore.defaultPath())
        let lastGood = LastGoodConfig(stateFile: store.path)
        var standing = ConfigStanding(path: source.path, source: .file)
        let config: RoleConfig
        switch readConfig(source, lastGood: lastGood, logger: logger) {
        case .success(let read):
            config = read
            if !FileManager.default.fileExists(atPath: source.path) { standing.source = .defaults }
        case .failure(let error):
            standing.error = error.description
            if let kept = lastGood.load() {
                config = kept
                standing.source = .lastGood
                logger.error(
                    "config \(source.path.logSafe) not used; running on the last good config (\(lastGood.path.logSafe))"
                )
            } else {
                config = ConfigStanding.failSafeConfig
                standing.source = .failSafe
                logger.error(
                    "config \(source.path.logSafe) not used and none was good before: every screen external, no controller UI"
                )
            }
        }
        let loaded = store.load()
        if let warning = loaded.warning { logger.error("\(warning.logSafe)") }
        logger.info(
            "state \(store.path): \(loaded.state.cards.count) cards, \(loaded.state.messages.count) messages restored")
        var product = ProductController(
            model: ScreenModel(config: config, state: loaded.state), store: store, logger: logger)
        product.configSource = source
        product.configStanding = standing
        return product
    }

    /// The config, or why it cannot be used (logged, saying exactly what is wrong). A config that reads is kept as
    /// the last good one.
    private static func readConfig(
        _ source: (path: String, mustExist: Bool), lastGood: LastGoodConfig, logger: Logger
    ) -> Result<RoleConfig, RoleConfigError> {
        do throws(RoleConfigError) {
            let text: String?
            do throws(ConfigFile.Problem) {
                text = try ConfigFile.text(at: source.path)
            } catch {
                throw .unreadable(file: source.path, reason: error.message)
            }
            guard let text else {
                if source.mustExist {
                    throw .unreadable(file: source.path, reason: "no such file (it was named explicitly)")
                }
                logger.info("config \(source.path.logSafe): none, the defaults")
                return .success(RoleConfig())
            }
            let config: RoleConfig
            do {
                config = try RoleConfig.parse(text)
            } catch {
                throw error.inFile(source.path)
            }
            logger.info("config \(source.path.logSafe): \(config.rules.count) role rules")
            do {
                try lastGood.remember(text: text)
            } catch {
                logger.warning(
                    "the last good config could not be kept at \(lastGood.path.logSafe): \(String(describing: error).logSafe)"
                )
            }
            return .success(config)
        } catch {
            logger.error("config not used, \(String(describing: error).logSafe)")
            return .failure(error)
        }
    }

    /// Reads the config file again (SIGHUP) and reassigns roles; a config that cannot be used leaves the current
    /// one in force.
    public mutating func reloadConfig() -> Outcome {
        guard let source = configSource else { return Outcome() }
        logger.info("reloading the config (SIGHUP)")
        let config: RoleConfig
        switch Self.readConfig(source, lastGood: LastGoodConfig(stateFile: store.path), logger: logger) {
        case .success(let read):
            config = read
            configStanding = ConfigStanding(
                path: source.path, source: FileManager.default.fileExists(atPath: source.path) ? .file : .defaults)
        case .failure(let error):
            logger.error("the previous config stays in force")
            configStanding.error = error.description
            if configStanding.source == .file || configStanding.source == .defaults {
                configStanding.source = .previous
            }
            return Outcome()
        }
        let themeChanged = config.theme != model.roles.config.theme
        var outcome = Outcome()
        absorb(model.replace(config: config), into: &outcome)
        // A new look redraws every screen, even when no role changed.
        if themeChanged { outcome.changes.everyScreen = true }
        return outcome
    }

    /// Where the controller UI's parts are for a buffer of this size, as drawn and as hit-tested: one place, so a
    /// click lands on what is shown (the screens list scrolls to the focused row; waiting cards take room).
    public func controllerLayout(width: Float, height: Float) -> ControllerLayout {
        var panel = panel
        panel.clampFocus(rows: outputs.count)
        var focusedRow: Int?
        if case .screen(let index) = panel.focus { focusedRow = index }
        return ControllerLayout(
            width: width, height: height, rowCount: outputs.count, focusedRow: focusedRow,
            waitingCardCount: model.cards.waiting.count)
    }

    /// The connected outputs, in natural name order (the order of the controller's screens list).
    public var outputs: [OutputInfo] { model.roles.outputs }

    /// What the screen on this output shows.
    public func kind(of registryName: UInt32) -> ScreenKind { model.kind(of: registryName) }

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
        var outcome: Outcome
        do throws(MessageError) {
            outcome = try perform(message, vitals: vitals)
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

    private mutating func perform(_ message: Message, vitals: () -> Vitals) throws(MessageError) -> Outcome {
        switch message {
        case .send(let text, let screen, let ttl):
            guard text.contains(where: { !$0.isWhitespace }) else {
                throw MessageError(.invalidParams, "\"text\" is empty or only whitespace: nothing to show")
            }
            if let screen { try refuseController(screen, for: "messages") }
            let logged = try invalidParams { () throws(UnknownScreenError) in
                try model.receive(text: text, screen: screen, ttl: ttl)
            }
            // What people send is theirs: its text only at debug, never in a kiosk's default journal.
            let target = screen ?? "every screen"
            logger.info("message #\(logged.id) for \(target) (\(logged.text.count) characters)")
            logger.debug("message #\(logged.id) for \(target): \(logged.text.prefix(80).logSafe)")
            var outcome = Outcome(reply: .sent(id: logged.id, screen: screen))
            outcome.events = [.messageReceived(id: logged.id, text: logged.text, screen: screen)]
            outcome.changes.message = logged
            outcome.changes.controllerUI = true
            return saving(outcome)
        case .openCard(let screen, let text):
            try refuseController(screen, for: "cards")
            let card = try invalidParams { () throws(CardError) in try model.openCard(text: text, onScreen: screen) }
            logger.info("card #\(card.id) opened on \(screen)")
            var outcome = Outcome(reply: .cardOpened(id: card.id, screen: screen))
            outcome.events = [.cardOpened(id: card.id, screen: screen, text: text)]
            absorb(model.assignment, into: &outcome)
            outcome.changes.screens = [screen]
            return saving(outcome)
        case .closeCard(let screen):
            let card: Card
            do {
                card = try model.closeCard(onScreen: screen)
            } catch .noCardOpen {
                throw MessageError(.refused, "no card is open on \(screen)")
            } catch {
                throw MessageError(.invalidParams, error.description)
            }
            logger.info("card #\(card.id) closed on \(screen)")
            var outcome = Outcome(reply: .cardClosed(id: card.id, screen: screen))
            outcome.events = [.cardClosed(id: card.id, screen: screen)]
            outcome.changes.screens = [screen]
            outcome.changes.controllerUI = true
            return saving(outcome)
        case .reopenCard(let id, let screen):
            try refuseController(screen, for: "cards")
            let card: Card
            do {
                card = try model.reopenCard(id: UInt64(id), onScreen: screen)
            } catch {
                throw MessageError(.invalidParams, error.description)
            }
            logger.info("card #\(card.id) opened again on \(screen)")
            var outcome = Outcome(reply: .cardReopened(id: card.id, screen: screen))
            outcome.events = [.cardOpened(id: card.id, screen: screen, text: card.text)]
            absorb(model.assignment, into: &outcome)
            outcome.changes.screens = [screen]
            return saving(outcome)
        case .discardCard(let id):
            let card: Card
            do {
                card = try model.discardCard(id: UInt64(id))
            } catch {
                throw MessageError(.invalidParams, error.description)
            }
            logger.info("card #\(card.id) discarded")
            var outcome = Outcome(reply: .cardDiscarded(id: card.id))
            outcome.events = [.cardDiscarded(id: card.id)]
            if let screen = card.screen { outcome.changes.screens = [screen] }
            outcome.changes.controllerUI = true
            return saving(outcome)
        case .setRole(let screen, let roleName, let force):
            let known = model.roles.knownRoles
            guard let role = known.first(where: { $0.rawValue == roleName }) else {
                throw MessageError(
                    .invalidParams,
                    "unknown role \"\(roleName.logSafe)\" (known: \(known.map(\.rawValue).joined(separator: ", ")); "
                        + "other roles are declared by naming them in a config rule)")
            }
            var trial = model
            _ = try invalidParams { () throws(UnknownScreenError) in try trial.set(role: role, forScreen: screen) }
            if trial.assignment.controller == nil && model.assignment.controller != nil && !force {
                throw MessageError(
                    .refused,
                    "\(screen) would no longer show the controller UI and no other screen would: refused (add "
                        + "\"force\": true, or --force, to do it anyway)")
            }
            model = trial
            var outcome = Outcome(reply: .roleSet(screen: screen, role: role.rawValue))
            absorb(model.assignment, into: &outcome)
            return saving(outcome)
        case .resetRole(let screen):
            let assignment = try invalidParams { () throws(UnknownScreenError) in
                try model.resetRole(forScreen: screen)
            }
            logger.info("roles and modes set at run time forgotten for \(screen ?? "every monitor")")
            var outcome = Outcome(reply: .roleReset(screen: screen))
            absorb(assignment, into: &outcome)
            outcome.changes.state = true
            return saving(outcome)
        case .setContent(let screen, let modeName):
            guard let mode = ContentMode(rawValue: modeName) else {
                let modes = ContentMode.allCases.map(\.rawValue).joined(separator: ", ")
                throw MessageError(.invalidParams, "unknown content mode \"\(modeName.logSafe)\" (known: \(modes))")
            }
            let assignment = try invalidParams { () throws(UnknownScreenError) in
                try model.set(content: mode, forScreen: screen)
            }
            var outcome = Outcome(reply: .contentSet(screen: screen, mode: mode.rawValue))
            absorb(assignment, into: &outcome)
            return saving(outcome)
        case .clearMessages(let screen):
            let count = try invalidParams { () throws(UnknownScreenError) in try model.clearMessages(screen: screen) }
            logger.info("\(count) messages cleared from \(screen ?? "every screen")")
            var outcome = Outcome(reply: .messagesCleared(screen: screen, count: count))
            outcome.events = [.messagesCleared(screen: screen, count: count)]
            outcome.changes.everyScreen = true
            outcome.changes.controllerUI = true
            return saving(outcome)
        case .status:
            return Outcome(reply: .result(method: .status, result: StatusReport(self, vitals: vitals()).json))
        case .outputs:
            return Outcome(
                reply: .result(method: .outputs, result: ["outputs": .array(outputs.map(StatusReport.json))]))
        case .openWeb(let screen, let url):
            if let problem = WebAddress.problem(url) {
                throw MessageError(.invalidParams, "\"url\": \(problem)")
            }
            try invalidParams { () throws(UnknownScreenError) in try model.openPage(url: url, onScreen: screen) }
            logger.info("web page on \(screen): \(url.logSafeURL)")
            var outcome = Outcome(
                reply: .result(method: .openWeb, result: ["screen": .string(screen), "url": .string(url)]))
            absorb(model.assignment, into: &outcome)
            outcome.changes.screens = [screen]
            outcome.changes.pageReloads = [screen]
            return saving(outcome)
        case .closeWeb(let screen):
            let shown = try invalidParams { () throws(UnknownScreenError) in try model.closePage(onScreen: screen) }
            guard shown else { throw MessageError(.refused, "no web page is shown on \(screen)") }
            logger.info("web page closed on \(screen)")
            var outcome = Outcome(reply: .result(method: .closeWeb, result: ["screen": .string(screen)]))
            absorb(model.assignment, into: &outcome)
            outcome.changes.screens = [screen]
            return saving(outcome)
        case .reloadWeb(let screen):
            let output = try invalidParams { () throws(UnknownScreenError) in try model.roles.output(named: screen) }
            guard model.page(of: output.registryName) != nil else {
                throw MessageError(.refused, "no web page is shown on \(screen)")
            }
            var outcome = Outcome(reply: .result(method: .reloadWeb, result: ["screen": .string(screen)]))
            outcome.changes.pageReloads = [screen]
            return outcome
        case .remoteOffer(let link, let code, let locked):
            let offer = link.isEmpty && !locked ? nil : RemoteOffer(link: link, code: code, locked: locked)
            var outcome = Outcome(reply: .result(method: .remoteOffer, result: [:]))
            // The same offer again (hidden while someone is in control, then hidden again) shows nothing new.
            outcome.changes.remoteOffer = offer != remoteOffer
            remoteOffer = offer
            return outcome
        case .remoteActivity(let activity):
            var outcome = Outcome(reply: .result(method: .remoteActivity, result: [:]))
            outcome.events = [activity.event]
            return outcome
        case .showMedia(let screen, let path, let fit, let rotation, let loop):
            try refuseController(screen, for: "images or videos")
            _ = try invalidParams { () throws(UnknownScreenError) in try model.roles.output(named: screen) }
            var outcome = Outcome()
            outcome.mediaToRead = MediaRequest(
                screen: screen, item: MediaItem(path: path, fit: fit, rotation: rotation, loop: loop))
            return outcome
        case .setPlaylist(let screen, let playlist):
            try refuseController(screen, for: "playlists")
            let now = Date().timeIntervalSince1970
            try invalidParams { () throws(UnknownScreenError) in
                try model.setPlaylist(playlist, onScreen: screen, now: now)
            }
            let position = playlist.position(at: now)
            logger.info("playlist of \(playlist.items.count) items on \(screen), item \(position.index + 1) now")
            var outcome = Outcome(
                reply: .result(
                    method: .setPlaylist,
                    result: [
                        "screen": .string(screen), "items": .integer(playlist.items.count),
                        "index": .integer(position.index), "until": .number(position.next),
                    ]))
            outcome.events = [
                .playlistItem(
                    screen: screen, index: position.index, source: playlist.items[position.index].source,
                    until: position.next)
            ]
            absorb(model.assignment, into: &outcome)
            outcome.changes.screens = [screen]
            return saving(outcome)
        case .clearPlaylist(let screen):
            let shown = try invalidParams { () throws(UnknownScreenError) in try model.clearPlaylist(onScreen: screen) }
            guard shown else { throw MessageError(.refused, "no playlist is set on \(screen)") }
            logger.info("playlist cleared on \(screen)")
            var outcome = Outcome(reply: .result(method: .clearPlaylist, result: ["screen": .string(screen)]))
            absorb(model.assignment, into: &outcome)
            outcome.changes.screens = [screen]
            return saving(outcome)
        case .stopMedia(let screen):
            let shown = try invalidParams { () throws(UnknownScreenError) in try model.stopMedia(onScreen: screen) }
            guard shown else { throw MessageError(.refused, "no image or video is shown on \(screen)") }
            logger.info("media stopped on \(screen)")
            var outcome = Outcome(reply: .result(method: .stopMedia, result: ["screen": .string(screen)]))
            absorb(model.assignment, into: &outcome)
            outcome.changes.screens = [screen]
            return saving(outcome)
        }
    }

    // MARK: - Playlists

    /// When the next playlist item starts on any screen: the caller asks ``advancePlaylists(now:)`` then.
    public var nextPlaylistSwitch: Date? {
        model.nextPlaylistSwitch(after: Date().timeIntervalSince1970).map { Date(timeIntervalSince1970: $0) }
    }

    /// Moves every playlist to the item the wall clock says: the screens whose item changed redraw, all in the same
    /// render pass.
    public mutating func advancePlaylists(now: Date = Date()) -> Outcome {
        var outcome = Outcome()
        let time = now.timeIntervalSince1970
        for (screen, index) in model.advancePlaylists(now: time) {
            guard let output = outputs.first(where: { $0.displayName == screen }),
                let (playlist, _) = model.playlistItem(of: output.registryName)
            else { continue }
            outcome.events.append(
                .playlistItem(
                    screen: screen, index: index, source: playlist.items[index].source,
                    until: playlist.position(at: time).next))
            outcome.changes.screens.insert(screen)
        }
        return outcome
    }

    // MARK: - Media

    /// Answers a `media.show` once its file was read (``Outcome/mediaToRead``): shows it when it can be shown, else
    /// refuses with the reason and leaves the screen as it was.
    public mutating func settle(
        _ request: MediaRequest, with reading: MediaReading, now: UInt64 = MonotonicClock.nanoseconds()
    )
        -> Outcome
    {
        let screen = request.screen
        var outcome: Outcome
        switch reading {
        case .failed(let reason):
            logger.warning("media on \(screen) refused: \(reason.logSafe)")
            outcome = Outcome(reply: .error(MessageError(.mediaFailed, reason)))
            outcome.events = [.mediaError(screen: screen, path: request.item.path, error: reason)]
        case .readable(let kind, let width, let height, let decoder):
            do throws(MessageError) {
                // The screen may have gone, or become the controller's, while the file was read.
                try refuseController(screen, for: "images or videos")
                try invalidParams { () throws(UnknownScreenError) in
                    try model.showMedia(ShownMedia(item: request.item, kind: kind), onScreen: screen)
                }
                logger.info("\(kind.rawValue) \(width)x\(height) on \(screen): \(request.item.path.logSafe)")
                outcome = Outcome(
                    reply: .result(
                        method: .showMedia,
                        result: [
                            "screen": .string(screen), "path": .string(request.item.path),
                            "kind": .string(kind.rawValue),
                            "width": .integer(width), "height": .integer(height),
                        ]))
                outcome.events = [
                    .mediaStarted(
                        screen: screen, path: request.item.path, kind: kind.rawValue, width: width, height: height,
                        decoder: decoder)
                ]
                absorb(model.assignment, into: &outcome)
                outcome.changes.screens = [screen]
                outcome = saving(outcome)
            } catch {
                outcome = Outcome(reply: .error(error))
            }
        }
        if let id = request.requestID, let reply = outcome.reply {
            retries[request.producer, default: RetryBook()].remember(reply, for: id, now: now)
        }
        return outcome
    }

    // MARK: - Time

    /// When the next message sent with a ttl is due to go: the caller asks ``expireMessages(now:)`` then.
    public var nextExpiry: Date? { model.log.nextExpiry }

    /// Removes the messages whose ttl is up.
    public mutating func expireMessages(now: Date = Date()) -> Outcome {
        let expired = model.expireMessages(at: now)
        var outcome = Outcome()
        guard !expired.isEmpty else { return outcome }
        outcome.events = expired.map { .messageExpired(id: $0.id) }
        outcome.changes.everyScreen = true
        outcome.changes.controllerUI = true
        outcome.changes.state = true
        return saving(outcome)
    }

    // MARK: - Outputs

    /// The set of complete outputs changed (any order): reassigns roles; cards of screens that went away return
    /// to the waiting list.
    public mutating func outputsChanged(_ outputs: [OutputInfo]) -> Outcome {
        let update = model.update(outputs: outputs)
        var outcome = Outcome()
        for card in update.returnedCards {
            logger.info("card #\(card.id) returned to the controller's list: its screen went away")
            outcome.events.append(.cardReturned(id: card.id))
            outcome.changes.state = true
        }
        absorb(update.assignment, into: &outcome)
        // The screens list shows every output: any change redraws the controller.
        outcome.changes.controllerUI = true
        return saving(outcome)
    }

    // MARK: - The controller UI

    /// A key for the controller UI (wherever the compositor put keyboard focus).
    public mutating func handle(key: PanelKey) -> Outcome {
        let action = panel.handle(key, rows: outputs.count)
        return perform(action)
    }

    /// A pointer or touch press on one of the controller UI's controls.
    public mutating func press(_ control: ControllerPanel.Control) -> Outcome {
        let action = panel.press(control, rows: outputs.count)
        return perform(action)
    }

    private mutating func perform(_ action: ControllerPanel.Action?) -> Outcome {
        var outcome = Outcome()
        outcome.changes.controllerUI = true
        switch action {
        case nil:
            break
        case .send(let text)?:
            // Through the bus like every other message: one path, in order, with its enqueue timestamp.
            outcome.toSend = .send(text: text, screen: nil)
        case .cycleContent(let row)?:
            guard row < outputs.count, case .external(let mode) = kind(of: outputs[row].registryName) else { break }
            let all = ContentMode.cycle
            let next = all[((all.firstIndex(of: mode) ?? -1) + 1) % all.count]
            if let assignment = try? model.set(content: next, forScreen: outputs[row].displayName) {
                absorb(assignment, into: &outcome)
                outcome.changes.state = true
            }
        }
        return saving(outcome)
    }

    // MARK: - State

    /// Writes the state file if anything changed since it was last written (atomic: write, fsync, rename; the
    /// previous file stays whole until the rename). - Returns: false when the write failed: the state stays
    /// unsaved, and the caller tries again later.
    @discardableResult
    public mutating func saveIfChanged() -> Bool {
        guard hasUnsavedState else { return true }
        do {
            try store.save(model.persistentState)
            hasUnsavedState = false
            saves.written += 1
            if saves.lastError != nil { logger.notice("state saved again to \(store.path)") }
            saves.lastError = nil
            return true
        } catch {
            // Logged once per failure kind, not once per retry.
            if saves.lastError != error.description {
                logger.error("\(error.description.logSafe); kept in memory, retrying")
            }
            saves.failed += 1
            saves.lastError = error.description
            return false
        }
    }

    // MARK: - Helpers

    /// The assignment's changes as events and log lines, its warnings logged.
    private func absorb(_ assignment: Assignment, into outcome: inout Outcome) {
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

    /// Marks the state unsaved when the step changed it: a successful mutating request, or a change it reported.
    private mutating func saving(_ outcome: Outcome) -> Outcome {
        var outcome = outcome
        if Self.mutates(outcome.reply) { outcome.changes.state = true }
        if outcome.changes.state { hasUnsavedState = true }
        return outcome
    }

    /// Whether a successful reply of this method changed the persistent state.
    private static func mutates(_ reply: Reply?) -> Bool {
        guard case .result(let method, _)? = reply else { return false }
        switch method {
        case .send, .openCard, .closeCard, .reopenCard, .discardCard, .setRole, .resetRole, .setContent,
            .clearMessages, .openWeb, .closeWeb, .showMedia, .stopMedia, .setPlaylist, .clearPlaylist:
            return true
        case .status, .outputs, .subscribeEvents, .remoteOffer, .reloadWeb, .remoteActivity: return false
        }
    }

    /// Messages and cards go to external screens: one aimed at the controller's screen would be shown nowhere.
    private func refuseController(_ screen: String, for what: String) throws(MessageError) {
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

    /// Runs a model call whose refusal is the client's mistake: reported as `invalidParams` with its description.
    private func invalidParams<T, E: Error & CustomStringConvertible>(_ body: () throws(E) -> T) throws(MessageError)
        -> T
    {
        do {
            return try body()
        } catch {
            throw MessageError(.invalidParams, error.description)
        }
    }
}
