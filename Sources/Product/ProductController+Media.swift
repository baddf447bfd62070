import Foundation
import Messaging
import Outputs
import Screens
import SystemCalls

/// Images, videos and playlists on screens. A `media.show` is answered only once its file was read, off the display
/// thread: ``showMedia(screen:path:fit:rotation:loop:audio:at:)`` hands the read back as ``Outcome/mediaToRead`` and
/// ``settle(_:with:now:)`` answers it.
extension ProductController {
    // MARK: - Images and videos

    /// `media.show`: checked here, answered by ``settle(_:with:now:)`` once the file was read. A request for sound
    /// holds it while its file is read (``soundReads``).
    mutating func showMedia(
        screen: String, path: String, fit: MediaFit, rotation: MediaRotation, loop: Bool, audio: Bool, at: Double?,
        wallNow: Double = Date().timeIntervalSince1970, now: UInt64 = MonotonicClock.nanoseconds()
    ) throws(MessageError) -> Outcome {
        try refuseController(screen, for: "images or videos")
        _ = try connected(screen)
        if audio { try refuseSound(on: screen, readsAt: now) }
        if let at, at > wallNow + Self.longestStartLead {
            throw MessageError(
                .invalidParams,
                "\"at\" is more than \(Int(Self.longestStartLead)) s ahead (\(at), now is \(wallNow)): use a playlist or a schedule"
            )
        }
        if audio {
            soundReads[screen] = ((soundReads[screen]?.count ?? 0) + 1, now &+ UInt64(Self.soundReadLease * 1e9))
        }
        var outcome = Outcome()
        outcome.mediaToRead = MediaRequest(
            screen: screen,
            item: MediaItem(path: path, fit: fit, rotation: rotation, loop: loop, clockStart: at, audio: audio))
        return outcome
    }

    /// Refuses sound on `screen` while another screen's video has it: the machine has one audio output to give. With
    /// `readsAt` (a new request, at that time), also while another screen's request for it is being read; once a file
    /// was read, the first to be answered gets it.
    private func refuseSound(on screen: String, readsAt now: UInt64? = nil) throws(MessageError) {
        let reading = now.map { now in soundReads.filter { $0.key != screen && $0.value.until > now }.map(\.key) }
        let holders = (reading ?? []) + [model.soundScreen(otherThan: screen)].compactMap { $0 }
        guard let other = holders.min(by: { $0.naturalOrder($1) }) else { return }
        throw MessageError(
            .invalidParams,
            "sound plays on \(other) already, and on one screen at a time: show its file there without \"audio\" first")
    }

    /// How far ahead a `media.show` may say when it starts: its video waits ready to play meanwhile, holding its
    /// decoder and a few frames, and a restart meanwhile forgets it. A start further off is for a playlist or a
    /// schedule.
    static let longestStartLead = 60.0

    /// How long a request for sound holds it while its file is read, in seconds: far beyond the screens' deadline for
    /// a read (4 s), so that it only matters for a read that is never settled, which must not hold the sound for good.
    static let soundReadLease = 30.0

    /// Answers a `media.show` once its file was read (``Outcome/mediaToRead``): shows it when it can be shown, else
    /// refuses with the reason and leaves the screen as it was.
    public mutating func settle(
        _ request: MediaRequest, with reading: MediaReading, now: UInt64 = MonotonicClock.nanoseconds()
    )
        -> Outcome
    {
        let before = model.assignment
        let screen = request.screen
        if request.item.audio, let held = soundReads[screen] {
            soundReads[screen] = held.count > 1 ? (held.count - 1, held.until) : nil
        }
        var outcome: Outcome
        switch reading {
        case .failed(let reason):
            logger.warning("media on \(screen) refused: \(reason.logSafe)")
            outcome = Outcome(reply: .error(MessageError(.mediaFailed, reason)))
            outcome.events = [.mediaError(screen: screen, path: request.item.path, error: reason)]
        case .readable(let kind, let width, let height, let decoder):
            do throws(MessageError) {
                // The screen may have gone, or become the controller's, while the file was read; another screen's
                // request for sound may have been answered meanwhile.
                try refuseController(screen, for: "images or videos")
                if request.item.audio { try refuseSound(on: screen) }
                // Given a start still to come, the screen switches then (``advancePlaylists(now:)``), with every screen
                // given the same start.
                try invalidParams { () throws(UnknownScreenError) in
                    try model.showMedia(
                        ShownMedia(item: request.item, kind: kind), onScreen: screen, now: Date().timeIntervalSince1970)
                }
                let start = request.item.clockStart
                let when = start.map { " from \($0) on the clock" } ?? ""
                logger.info("\(kind.rawValue) \(width)x\(height) on \(screen)\(when): \(request.item.path.logSafe)")
                var result: [String: JSONValue] = [
                    "screen": .string(screen), "path": .string(request.item.path), "kind": .string(kind.rawValue),
                    "width": .integer(width), "height": .integer(height),
                ]
                if let start { result["at"] = .number(start) }
                outcome = Outcome(reply: .result(method: .showMedia, result: result))
                outcome.events = [
                    .mediaStarted(
                        screen: screen, path: request.item.path, kind: kind.rawValue, width: width, height: height,
                        decoder: decoder)
                ]
                absorbReassignment(since: before, into: &outcome)
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

    /// `media.stop`: the screen shows messages again, and a `media.show` waiting for its start there is forgotten.
    mutating func stopMedia(screen: String) throws(MessageError) -> Outcome {
        let before = model.assignment
        let waited = model.cancelMediaStart(onScreen: screen)
        let shown = try invalidParams { () throws(UnknownScreenError) in try model.stopMedia(onScreen: screen) }
        guard shown || waited else { throw MessageError(.refused, "no image or video is shown on \(screen)") }
        logger.info("media stopped on \(screen)")
        var outcome = Outcome(reply: .result(method: .stopMedia, result: ["screen": .string(screen)]))
        absorbReassignment(since: before, into: &outcome)
        outcome.changes.screens = [screen]
        return saving(outcome)
    }

    // MARK: - Playlists

    /// `playlist.set`: the item the wall clock says shows at once.
    mutating func setPlaylist(screen: String, playlist: Playlist) throws(MessageError) -> Outcome {
        let before = model.assignment
        try refuseController(screen, for: "playlists")
        let now = Date().timeIntervalSince1970
        try invalidParams { () throws(UnknownScreenError) in
            try model.setPlaylist(playlist, onScreen: screen, now: now)
        }
        // Timed by the videos' lengths known, as the model plays it.
        let position = playlist.timed(by: model.videoLengths).position(at: now)
        logger.info("playlist of \(playlist.items.count) items on \(screen), item \(position.index + 1) now")
        var outcome = Outcome(
            reply: .result(
                method: .setPlaylist,
                result: [
                    "screen": .string(screen), "items": .integer(playlist.items.count),
                    "index": .integer(position.index), "until": .number(position.next),
                ]))
        // Under an interrupt the screen keeps playing the interrupt: its item is told when the interrupt ends.
        if model.interrupts[screen] == nil {
            outcome.events = [
                .playlistItem(
                    screen: screen, index: position.index, source: playlist.items[position.index].source,
                    until: position.next)
            ]
        }
        absorbReassignment(since: before, into: &outcome)
        outcome.changes.screens = [screen]
        return saving(outcome)
    }

    /// `playlist.clear`: the screen shows messages again.
    mutating func clearPlaylist(screen: String) throws(MessageError) -> Outcome {
        let before = model.assignment
        let shown = try invalidParams { () throws(UnknownScreenError) in try model.clearPlaylist(onScreen: screen) }
        guard shown else { throw MessageError(.refused, "no playlist is set on \(screen)") }
        logger.info("playlist cleared on \(screen)")
        var outcome = Outcome(reply: .result(method: .clearPlaylist, result: ["screen": .string(screen)]))
        absorbReassignment(since: before, into: &outcome)
        outcome.changes.screens = [screen]
        return saving(outcome)
    }

    // MARK: - Interrupts

    /// `playlist.interrupt`: starts an interrupt on a screen, or ends the one there.
    mutating func interruptPlaylist(screen: String, request: InterruptRequest) throws(MessageError) -> Outcome {
        switch request {
        case .start(let source, let fit, let seconds, let epoch):
            return try startInterrupt(screen: screen, source: source, fit: fit, seconds: seconds, epoch: epoch)
        case .clear:
            return try clearInterrupt(screen: screen)
        }
    }

    /// Plays the items (or the config's playlist) over what the screen shows, from the first item at `epoch`; the
    /// screen's mode stays, for when it ends.
    private mutating func startInterrupt(
        screen: String, source: InterruptRequest.Source, fit: MediaFit?, seconds: Double?, epoch: Double?
    ) throws(MessageError) -> Outcome {
        try refuseController(screen, for: "playlists")
        let now = Date().timeIntervalSince1970
        var playlist: Playlist
        switch source {
        case .items(let items):
            playlist = Playlist(items: items, fit: fit ?? .contain)
        case .named(let name):
            guard let named = model.roles.config.playlists[name] else {
                let known = model.roles.config.playlists.keys.sorted().joined(separator: ", ")
                throw MessageError(
                    .invalidParams,
                    "no [[playlist]] named \"\(name.logSafe)\" in the config (known: \(known.isEmpty ? "none" : known))"
                )
            }
            playlist = named
            if let fit { playlist.fit = fit }
        }
        playlist.epoch = epoch ?? now
        let interrupt = PlaylistInterrupt(playlist: playlist, ends: seconds.map { playlist.epoch + $0 })
        if let ends = interrupt.ends, interrupt.hasEnded(at: now) {
            throw MessageError(
                .invalidParams,
                "the interrupt would have ended already (\"epoch\" + \"seconds\" = \(ends), now is \(now))")
        }
        try invalidParams { () throws(UnknownScreenError) in
            try model.interrupt(interrupt, onScreen: screen, now: now)
        }
        let position = interrupt.timed(by: model.videoLengths).position(at: now)
        let length = seconds.map { "for \($0) s" } ?? "until cleared"
        logger.info("interrupt of \(playlist.items.count) items on \(screen) \(length), item \(position.index + 1) now")
        let ends: JSONValue = interrupt.ends.map { .number($0) } ?? .null
        var outcome = Outcome(
            reply: .result(
                method: .interruptPlaylist,
                result: [
                    "screen": .string(screen), "items": .integer(playlist.items.count),
                    "index": .integer(position.index), "until": .number(position.next), "ends": ends,
                ]))
        outcome.events = [
            .playlistInterrupt(screen: screen, active: true, ends: interrupt.ends),
            .playlistItem(
                screen: screen, index: position.index, source: playlist.items[position.index].source,
                until: position.next),
        ]
        // No role or mode changed: the assignment has nothing new to tell (its last changes were told already).
        outcome.changes.screens = [screen]
        return saving(outcome)
    }

    /// Ends the interrupt on a screen before its time: it shows what the clock says it would have.
    private mutating func clearInterrupt(screen: String) throws(MessageError) -> Outcome {
        let now = Date().timeIntervalSince1970
        let cleared = try invalidParams { () throws(UnknownScreenError) in
            try model.clearInterrupt(onScreen: screen, now: now)
        }
        guard cleared else { throw MessageError(.refused, "no interrupt is playing on \(screen)") }
        logger.info("interrupt cleared on \(screen)")
        var outcome = Outcome(
            reply: .result(method: .interruptPlaylist, result: ["screen": .string(screen), "cleared": .bool(true)]))
        outcome.events = [.playlistInterrupt(screen: screen, active: false, ends: now)]
        outcome.events += itemEvent(on: screen, at: now)
        outcome.changes.screens = [screen]
        return saving(outcome)
    }

    /// The `playlist.item` of a connected screen that plays a playlist: the item it shows now, and until when.
    private func itemEvent(on screen: String, at time: Double) -> [Event] {
        guard let output = outputs.first(where: { $0.displayName == screen }),
            let (playlist, index) = model.playlistItem(of: output.registryName),
            let position = model.playlistPosition(of: output, at: time)
        else { return [] }
        return [.playlistItem(screen: screen, index: index, source: playlist.items[index].source, until: position.next)]
    }

    // MARK: - The clock

    /// When the next playlist item starts (or an interrupt ends) on any screen: the caller asks
    /// ``advancePlaylists(now:)`` then.
    public var nextPlaylistSwitch: Date? {
        model.nextPlaylistSwitch(after: Date().timeIntervalSince1970).map { Date(timeIntervalSince1970: $0) }
    }

    /// Ends the interrupts whose time is up, moves every playlist to the item the wall clock says, and turns screens off
    /// and on as their schedules say: the screens whose item, interrupt or power changed redraw, all in the same render
    /// pass.
    public mutating func advancePlaylists(now: Date = Date()) -> Outcome {
        advancePlaylists(now: now, schedulesBefore: scheduleChoices)
    }

    /// ``advancePlaylists(now:)``, telling the schedules that differ from `schedulesBefore` and redrawing the screens
    /// whose content differs from `kindsBefore` (``kinds``): a step that changed the model first (another schedule
    /// chosen, a config reloaded, a video measured) took its snapshots before the change.
    mutating func advancePlaylists(
        now: Date, schedulesBefore schedules: [String: ScheduleChoice], kindsBefore: [String: ScreenKind]? = nil
    ) -> Outcome {
        var outcome = Outcome()
        let time = now.timeIntervalSince1970
        let power = powerByScreen
        let assignment = model.assignment
        let kinds = kindsBefore ?? self.kinds
        let changed = model.advancePlaylists(now: time)
        reportPower(since: power, into: &outcome)
        reportSchedules(since: schedules, at: now, into: &outcome)
        // A `media.show` whose start came changed its screen's mode.
        if model.assignment != assignment { absorb(model.assignment, into: &outcome) }
        // Told before the items they give way to. An interrupt that ended in another step (an output change) is
        // told here too: the model asks for this call at once then.
        for (screen, ended) in model.takeEndedInterrupts() {
            logger.info("interrupt on \(screen) ended")
            outcome.events.append(.playlistInterrupt(screen: screen, active: false, ends: ended))
            outcome.changes.screens.insert(screen)
            outcome.changes.state = true
        }
        for (screen, index) in changed {
            outcome.events += itemEvent(on: screen, at: time)
            logSkippedItem(index, on: screen)
            if let output = outputs.first(where: { $0.displayName == screen }),
                let (playlist, shown) = model.playlistItem(of: output.registryName),
                model.shownItem(of: playlist, at: shown) == shown, let fade = playlist.items[shown].fadeSeconds,
                kind(of: output.registryName) != kinds[screen]
            {
                outcome.changes.crossfades[screen] = fade
            }
            // A picture or a video after another: the window under it draws the same background, and the new file goes
            // on its own layer (``ScreenUpdates`` never needs a software frame for it; the layer asks for the window's
            // commit when it moves). A playlist of pictures then costs a switch and a frame callback, nothing drawn.
            if case .media = kinds[screen], let output = outputs.first(where: { $0.displayName == screen }),
                case .media = kind(of: output.registryName)
            {
                continue
            }
            outcome.changes.screens.insert(screen)
        }
        // A screen whose content changed while its item's index did not (its playlist changed under it, or the item
        // became playable) redraws, and its item is told if it plays one.
        let moved = Set(changed.map(\.screen))
        for output in outputs
        where !moved.contains(output.displayName) && kind(of: output.registryName) != kinds[output.displayName] {
            outcome.events += itemEvent(on: output.displayName, at: time)
            outcome.changes.screens.insert(output.displayName)
        }
        return saving(outcome)
    }

    /// What every connected screen shows now, by screen name (``kind(of:)``).
    var kinds: [String: ScreenKind] {
        Dictionary(uniqueKeysWithValues: outputs.map { ($0.displayName, kind(of: $0.registryName)) })
    }
}
