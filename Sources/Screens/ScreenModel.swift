import Foundation
import Outputs

/// The whole pure model the display thread owns: roles and content modes, cards, and the message log, with the
/// rules that span them, and the conversion to and from the state file.
///
/// Rules that live here rather than in the parts:
/// - requests naming a screen are checked against the connected outputs (``UnknownScreenError``, listing them);
/// - opening (or reopening) a card on a screen switches that screen's content mode to `card`, remembered for the
///   monitor like any mode set at run time; closing the card leaves the mode alone (`card` with no card open
///   shows the messages, see ``ContentMode/card``);
/// - a screen that goes away sends its card back to the waiting list.
public struct ScreenModel: Sendable {
    public private(set) var roles: RoleAssigner
    public private(set) var cards: CardBoard
    public private(set) var log: MessageLog
    /// Pages opened at run time (`web.open`), by screen name; and screens whose configured page was closed. Both
    /// are saved in the state file, so a restart shows the same pages.
    public private(set) var pages: [String: String] = [:]
    private var closedPages: Set<String> = []
    /// Images and videos shown at run time (`media.show`), by screen name; and screens whose configured one was
    /// stopped. Saved like the pages.
    public private(set) var media: [String: ShownMedia] = [:]
    private var stoppedMedia: Set<String> = []
    /// `media.show`s read and waiting for the start they were given (their item's clock start), by screen name: each
    /// screen switches when its start comes (``advancePlaylists(now:)``), every screen given one start in the same
    /// step. Not saved: a restart within the wait (at most a minute) forgets them.
    public private(set) var startingMedia: [String: ShownMedia] = [:]
    /// Playlists set at run time, by screen name (saved), and the item each plays now (``advancePlaylists(now:)``).
    public private(set) var playlists: [String: Playlist] = [:]
    public private(set) var playing: [String: Int] = [:]
    /// Interrupts by screen name (saved): each plays over whatever its screen shows until its end, when
    /// ``advancePlaylists(now:)`` drops it; a screen not connected keeps its own until then.
    public private(set) var interrupts: [String: PlaylistInterrupt] = [:]
    /// Interrupts that ended by their time and that nobody was told of yet, with when (``takeEndedInterrupts()``).
    private var endedInterrupts: [(screen: String, ended: Double)] = []
    /// Steps taken on the playlists screens play (`playlist.next`, `pause`, …), by screen name (saved); each applies
    /// while the screen's playlist is the one it was taken on (``PlaylistSteering``).
    public private(set) var steering: [String: PlaylistSteering] = [:]
    /// Schedules chosen at run time (`schedule.set`): a `[[schedule]]`'s name by screen name (saved), followed instead
    /// of the screen's rule's.
    public private(set) var schedules: [String: String] = [:]
    /// What the `[[schedule]]` of each screen that follows one asks for now: a playlist by name, or the screen off.
    public private(set) var scheduled: [String: Schedule.Slot] = [:]
    /// The kiosk's time zone, in which schedules are read.
    public var timeZone = TimeZone.current
    /// Playlist assets by URL that are in the cache now: URL → local file (``shownItem(of:at:)``).
    public var availableAssets: [String: String] = [:]
    /// The lengths of the videos that play their own (items without seconds), by source, as measured (saved, so that
    /// a restarted kiosk places them at once; measured again each run, ``measured(length:ofVideo:)``). Every playlist
    /// the model plays is timed by them (``Playlist/timed(by:)``); one not measured yet is out of the cycle.
    public private(set) var videoLengths: [String: Double] = [:]

    /// - Parameters:
    ///   - config: the parsed config file (``RoleConfig/load(path:)``; the defaults when it was missing or bad).
    ///   - state: the restored state (``StateStore/load(now:)``).
    ///   - messageCapacity: how many messages the log keeps.
    public init(
        config: RoleConfig = RoleConfig(), state: PersistentState = PersistentState(),
        messageCapacity: Int = MessageLog.defaultCapacity
    ) {
        roles = RoleAssigner(config: config, memory: state.memory)
        cards = CardBoard(cards: state.cards)
        log = MessageLog(capacity: messageCapacity, restoring: state.messages)
        pages = state.pages ?? [:]
        closedPages = Set(state.closedPages ?? [])
        media = state.media ?? [:]
        stoppedMedia = Set(state.stoppedMedia ?? [])
        playlists = state.playlists ?? [:]
        steering = state.steering ?? [:]
        // A schedule the config no longer has is forgotten: the screen follows its rule's again.
        schedules = (state.schedules ?? [:]).filter { config.schedules[$0.value] != nil }
        let now = Date().timeIntervalSince1970
        // One that ended while Multiscreen was not running is simply over: nobody heard it start either.
        interrupts = (state.interrupts ?? [:]).filter { !$0.value.hasEnded(at: now) }
        videoLengths = state.videoLengths ?? [:]
        advancePlaylists(now: now)
    }

    /// The latest assignment.
    public var assignment: Assignment { roles.assignment }

    /// Reassigns after the outputs changed; cards of screens that went away return to the waiting list.
    @discardableResult
    public mutating func update(outputs: [OutputInfo]) -> (assignment: Assignment, returnedCards: [Card]) {
        let names = Set(outputs.map(\.displayName))
        var returned: [Card] = []
        for card in cards.open where !names.contains(card.screen!) {
            if let moved = cards.screenRemoved(card.screen!) { returned.append(moved) }
        }
        let assignment = roles.assign(outputs)
        // A screen that came (or whose mode changed) plays the item the clock says, as the others do.
        advancePlaylists(now: Date().timeIntervalSince1970)
        return (assignment, returned)
    }

    @discardableResult
    public mutating func set(role: ScreenRole, forScreen name: String) throws(UnknownScreenError) -> Assignment {
        try roles.set(role: role, forOutputNamed: name)
    }

    /// Takes a reloaded config and reassigns. The playlists stay where they were until the caller's
    /// ``advancePlaylists(now:)``, which tells what the new config changed.
    @discardableResult
    public mutating func replace(config: RoleConfig) -> Assignment { roles.replace(config: config) }

    /// Forgets the roles and modes set at run time for `name` (nil: all of them).
    @discardableResult
    public mutating func resetRole(forScreen name: String?) throws(UnknownScreenError) -> Assignment {
        try roles.reset(forOutputNamed: name)
    }

    @discardableResult
    public mutating func set(content: ContentMode, forScreen name: String) throws(UnknownScreenError) -> Assignment {
        let assignment = try roles.set(content: content, forOutputNamed: name)
        advancePlaylists(now: Date().timeIntervalSince1970)
        return assignment
    }

    /// Opens a card on `screen` (replacing the one there) and switches the screen to `card` mode.
    @discardableResult
    public mutating func openCard(text: String, onScreen screen: String) throws(CardError) -> Card {
        try checkCardScreen(screen)
        let card = cards.open(text: text, onScreen: screen)
        _ = try? roles.set(content: .card, forOutputNamed: screen)
        return card
    }

    /// Opens a waiting card (or moves an open one) to `screen`, and switches the screen to `card` mode.
    @discardableResult
    public mutating func reopenCard(id: UInt64, onScreen screen: String) throws(CardError) -> Card {
        try checkCardScreen(screen)
        let card = try cards.reopen(id: id, onScreen: screen)
        _ = try? roles.set(content: .card, forOutputNamed: screen)
        return card
    }

    /// Removes a card for good, waiting or open.
    @discardableResult
    public mutating func discardCard(id: UInt64) throws(CardError) -> Card { try cards.discard(id: id) }

    /// Closes the card open on `screen`.
    @discardableResult
    public mutating func closeCard(onScreen screen: String) throws(CardError) -> Card {
        try checkCardScreen(screen)
        return try cards.close(onScreen: screen)
    }

    /// Shows `url` on `screen` (the controller's screen too: the page replaces the controller UI there); an external
    /// screen switches to `web` mode, remembered like any mode set at run time.
    public mutating func openPage(url: String, onScreen screen: String) throws(UnknownScreenError) {
        let output = try roles.output(named: screen)
        pages[screen] = url
        closedPages.remove(screen)
        media[screen] = nil
        if assignment.controller != output.registryName { _ = try? roles.set(content: .web, forOutputNamed: screen) }
    }

    /// Stops showing a page on `screen`. - Returns: whether one was shown (opened or configured).
    @discardableResult
    public mutating func closePage(onScreen screen: String) throws(UnknownScreenError) -> Bool {
        let output = try roles.output(named: screen)
        let shown = page(of: output.registryName) != nil
        pages[screen] = nil
        closedPages.insert(screen)
        if shown && assignment.kind(of: output.registryName) == .external(.web) {
            _ = try? roles.set(content: .messages, forOutputNamed: screen)
        }
        return shown
    }

    /// Shows an image or a video on `screen` (an external screen): its content mode becomes the file's kind, and a
    /// page opened there closes.
    public mutating func showMedia(_ shown: ShownMedia, onScreen screen: String) throws(UnknownScreenError) {
        _ = try roles.output(named: screen)
        media[screen] = shown
        // Sound given here is taken from the files other screens remember but do not show now (a screen switched to
        // messages, off by schedule, unplugged), so that showing one of them again cannot bring a second sound.
        if shown.item.audio {
            for (other, remembered) in media where other != screen && remembered.item.audio {
                media[other]?.item.audio = false
            }
        }
        stoppedMedia.remove(screen)
        if pages[screen] != nil {
            pages[screen] = nil
            closedPages.insert(screen)
        }
        _ = try? roles.set(content: shown.kind == .image ? .image : .video, forOutputNamed: screen)
    }

    /// Shows `shown` on `screen` when its start (its item's clock start) comes, or at once when it has none or it has
    /// passed; a start waited for before on the screen is replaced.
    public mutating func showMedia(_ shown: ShownMedia, onScreen screen: String, now: Double)
        throws(UnknownScreenError)
    {
        guard let start = shown.item.clockStart, start > now else {
            startingMedia[screen] = nil
            try showMedia(shown, onScreen: screen)
            return
        }
        _ = try roles.output(named: screen)
        startingMedia[screen] = shown
    }

    /// The screen, other than `screen`, whose video plays its sound: an item with `audio` it shows now or waits to
    /// start (of several, which a rule matching several screens gives, the first by name, as the media owner
    /// chooses). Sound plays on one screen at a time (the machine has one audio output to give): a request for sound
    /// elsewhere is refused while this is not nil.
    public func soundScreen(otherThan screen: String) -> String? {
        // A start waits on a screen unplugged meanwhile too: it would take the sound back when it comes.
        let waiting = startingMedia.filter { $0.key != screen && $0.value.item.audio }.keys
        let shown = roles.outputs.filter { output in
            guard output.displayName != screen, case .media(let shown) = kind(of: output.registryName) else {
                return false
            }
            return shown.item.audio
        }
        return (Array(waiting) + shown.map(\.displayName)).min { $0.naturalOrder($1) }
    }

    /// Forgets the `media.show` waiting for its start on `screen` (every screen: nil): a later request for what the
    /// screen shows wins. - Returns: whether one was waiting.
    @discardableResult
    public mutating func cancelMediaStart(onScreen screen: String?) -> Bool {
        guard let screen else {
            defer { startingMedia.removeAll() }
            return !startingMedia.isEmpty
        }
        return startingMedia.removeValue(forKey: screen) != nil
    }

    /// Stops showing an image or a video on `screen`, which shows messages again. - Returns: whether one was shown.
    @discardableResult
    public mutating func stopMedia(onScreen screen: String) throws(UnknownScreenError) -> Bool {
        let output = try roles.output(named: screen)
        let shown = self.media(of: output.registryName) != nil
        media[screen] = nil
        stoppedMedia.insert(screen)
        if shown { _ = try? roles.set(content: .messages, forOutputNamed: screen) }
        return shown
    }

    /// Plays `playlist` on `screen` (an external screen), which switches to `playlist` mode; it starts with the item
    /// the wall clock says.
    public mutating func setPlaylist(_ playlist: Playlist, onScreen screen: String, now: Double)
        throws(UnknownScreenError)
    {
        _ = try roles.output(named: screen)
        // The same playlist again (a fleet's retained one, applied at every connect) keeps the steps taken on it.
        if playlists[screen] != playlist { steering[screen] = nil }
        playlists[screen] = playlist
        // Under an interrupt the screen plays the interrupt's item; the new playlist's is found when it ends.
        if interrupts[screen] == nil { playing[screen] = timed(playlist).position(at: now).index }
        if pages[screen] != nil {
            pages[screen] = nil
            closedPages.insert(screen)
        }
        _ = try? roles.set(content: .playlist, forOutputNamed: screen)
    }

    /// Stops the playlist on `screen`, which shows messages again. - Returns: whether one was set.
    @discardableResult
    public mutating func clearPlaylist(onScreen screen: String) throws(UnknownScreenError) -> Bool {
        let output = try roles.output(named: screen)
        let shown = playlists.removeValue(forKey: screen) != nil
        steering[screen] = nil
        if interrupts[screen] == nil { playing[screen] = nil }
        if shown && assignment.kind(of: output.registryName) == .external(.playlist) {
            _ = try? roles.set(content: .messages, forOutputNamed: screen)
        }
        return shown
    }

    /// Takes `step` on the playlist `screen` plays, at `time`, and shows the item the step leaves it on.
    /// - Returns: the playlist as stepped; nil when the screen plays no playlist of its own now (none, off by
    ///   schedule, or an interrupt over it, whose items are not stepped).
    public mutating func take(_ step: PlaylistStep, onScreen screen: String, at time: Double)
        throws(UnknownScreenError) -> Playlist?
    {
        let output = try roles.output(named: screen)
        guard interrupt(of: output) == nil, scheduled[screen] != .off, let own = ownPlaylist(of: output),
            let current = playlist(of: output)
        else { return nil }
        let stepped = current.taking(step, at: time)
        steering[screen] = stepped == own ? nil : PlaylistSteering(base: own, steered: stepped)
        playing[screen] = stepped.position(at: time).index
        return stepped
    }

    /// Makes `screen` follow the config's `[[schedule]]` named `name` from now on, instead of its rule's (nil: its
    /// rule's again). A schedule that names playlists puts the screen in `playlist` mode, in place of a playlist set
    /// at run time; one that only turns the screen off leaves what it shows alone. What it asks for now takes effect
    /// at the next ``advancePlaylists(now:)``.
    /// - Throws: ``UnknownScreenError`` for a screen not connected.
    /// - Returns: false when the config has no schedule of that name (nothing changed).
    public mutating func choose(schedule name: String?, onScreen screen: String) throws(UnknownScreenError) -> Bool {
        _ = try roles.output(named: screen)
        guard let name else {
            schedules[screen] = nil
            return true
        }
        guard let schedule = roles.config.schedules[name] else { return false }
        schedules[screen] = name
        if schedule.namesPlaylists {
            playlists[screen] = nil
            steering[screen] = nil
            if pages[screen] != nil {
                pages[screen] = nil
                closedPages.insert(screen)
            }
            _ = try? roles.set(content: .playlist, forOutputNamed: screen)
        }
        return true
    }

    /// Plays `interrupt` over whatever `screen` (a connected screen) shows, replacing an interrupt there, from its
    /// first item. Its mode, page, picture and playlist stay as they are, shown again when it ends.
    public mutating func interrupt(_ interrupt: PlaylistInterrupt, onScreen screen: String, now: Double)
        throws(UnknownScreenError)
    {
        _ = try roles.output(named: screen)
        interrupts[screen] = interrupt
        playing[screen] = interrupt.timed(by: videoLengths).position(at: now).index
    }

    /// Ends the interrupt on `screen` (connected or not: one not connected keeps its interrupt and may lose it the
    /// same way), which shows what it would have shown: its playlist's item at `now`, else its mode's content.
    /// - Returns: whether one was playing.
    @discardableResult
    public mutating func clearInterrupt(onScreen screen: String, now: Double) throws(UnknownScreenError) -> Bool {
        guard interrupts.removeValue(forKey: screen) != nil else {
            _ = try roles.output(named: screen)
            return false
        }
        playing[screen] =
            roles.outputs.first { $0.displayName == screen }.flatMap { playlist(of: $0) }?
            .position(at: now).index
        return true
    }

    /// The interrupts that ended by their time since the last call, with when they ended: their screens show what
    /// the clock says again, and whoever listens is to be told.
    public mutating func takeEndedInterrupts() -> [(screen: String, ended: Double)] {
        defer { endedInterrupts = [] }
        return endedInterrupts
    }

    /// Drops the interrupts whose end has come, connected or not; their screens' items are found again.
    private mutating func endInterrupts(now: Double) {
        for (screen, interrupt) in interrupts.sorted(by: { $0.key < $1.key }) where interrupt.hasEnded(at: now) {
            interrupts[screen] = nil
            // What the screen played was the interrupt's: whatever it plays now is a change, even the same index.
            playing[screen] = nil
            endedInterrupts.append((screen, interrupt.ends ?? now))
        }
    }

    /// Moves every screen's playlist to the item the wall clock says at `now` (seconds since 1970), after ending the
    /// interrupts whose time is up and switching the screens whose `media.show` start came (a screen gone meanwhile
    /// forgets it). - Returns: the screens whose item changed, with the item's index (a screen whose interrupt ended
    /// and that plays no playlist is not among them: ``takeEndedInterrupts()`` names it).
    @discardableResult
    public mutating func advancePlaylists(now: Double) -> [(screen: String, index: Int)] {
        for (screen, shown) in startingMedia where (shown.item.clockStart ?? now) <= now {
            startingMedia[screen] = nil
            try? showMedia(shown, onScreen: screen)
        }
        endInterrupts(now: now)
        var changed: [(String, Int)] = []
        var current: [String: Int] = [:]
        let previouslyScheduled = scheduled
        scheduled = [:]
        for output in roles.outputs {
            if let schedule = schedule(of: output) {
                scheduled[output.displayName] = schedule.slot(at: Date(timeIntervalSince1970: now), in: timeZone)
            }
            // Steps taken on a playlist the screen no longer plays are over: it starts from the clock again.
            if let steered = steering[output.displayName], ownPlaylist(of: output) != steered.base {
                steering[output.displayName] = nil
            }
        }
        for output in roles.outputs {
            guard let position = playlistPosition(of: output, at: now) else { continue }
            let index = position.index
            current[output.displayName] = index
            // A schedule's change matters to a screen that plays it, not to one an interrupt plays over.
            let scheduleChanged =
                previouslyScheduled[output.displayName] != scheduled[output.displayName] && interrupt(of: output) == nil
            if playing[output.displayName] != index || scheduleChanged {
                changed.append((output.displayName, index))
            }
        }
        // Playlists set at run time on screens not connected now keep their place for when they return.
        for (screen, playlist) in playlists where current[screen] == nil {
            let steered = steering[screen].flatMap { $0.base == playlist ? $0.steered : nil }
            current[screen] = timed(steered ?? playlist).position(at: now).index
        }
        playing = current
        return changed.sorted { $0.0 < $1.0 }
    }

    /// When the next playlist item starts on any screen, an interrupt ends, or a schedule turns a screen off or on
    /// (seconds since 1970); nil when nothing will change; `now` when an interrupt ended unannounced
    /// (``takeEndedInterrupts()``), so that it is told at once.
    public func nextPlaylistSwitch(after now: Double) -> Double? {
        let items = roles.outputs.compactMap { playlistPosition(of: $0, at: now)?.next }
        // Screens not connected keep their interrupts until these ends too.
        let interruptEnds = interrupts.values.compactMap(\.ends) + (endedInterrupts.isEmpty ? [] : [now])
        let schedules = roles.outputs.compactMap { output -> Double? in
            guard let schedule = schedule(of: output) else { return nil }
            // A schedule's playlists matter while the screen plays them; its periods that turn the screen off, always.
            let playsIt =
                assignment.kind(of: output.registryName) == .external(.playlist) && playlists[output.displayName] == nil
            guard playsIt || schedule.turnsScreensOff else { return nil }
            return schedule.nextChange(after: Date(timeIntervalSince1970: now), in: timeZone)?.timeIntervalSince1970
        }
        let mediaStarts = startingMedia.values.compactMap(\.item.clockStart)
        return (items + schedules + interruptEnds + mediaStarts).filter(\.isFinite).min()
    }

    /// The playlist the output plays while it is on: an interrupt's while one lasts, whatever its mode; else its own
    /// (``ownPlaylist(of:)``) as the steps taken on it left it.
    public func playlist(of output: OutputInfo) -> Playlist? {
        // Off by schedule, a screen plays nothing: its items cost no wakeups, and it comes back at the clock's item.
        guard scheduled[output.displayName] != .off else { return nil }
        if let interrupt = interrupt(of: output) { return interrupt.playlist }
        guard let own = ownPlaylist(of: output) else { return nil }
        if let steered = steering[output.displayName], steered.base == own { return timed(steered.steered) }
        return own
    }

    /// The playlist the output plays, while its mode is `playlist`, before any step taken on it: the one set at run
    /// time, else its schedule's (chosen at run time or by its rule), else its rule's; timed by ``videoLengths``.
    public func ownPlaylist(of output: OutputInfo) -> Playlist? {
        untimedPlaylist(of: output).map(timed)
    }

    private func untimedPlaylist(of output: OutputInfo) -> Playlist? {
        guard assignment.kind(of: output.registryName) == .external(.playlist) else { return nil }
        if let set = playlists[output.displayName] { return set }
        // The rule's (or its schedule's) playlist, at the screen's place in the rule's spread.
        let place = roles.config.rule(for: output)?.spread.firstIndex(of: output.displayName) ?? 0
        if case .playlist(let name) = scheduled[output.displayName] {
            return roles.config.playlists[name].map { Self.placed($0, at: place) }
        }
        // A schedule chosen at run time that names playlists replaces the rule's playlist, outside its periods too.
        if let chosen = schedules[output.displayName], roles.config.schedules[chosen]?.namesPlaylists == true {
            return nil
        }
        guard let name = roles.config.rule(for: output)?.playlist else { return nil }
        return roles.config.playlists[name].map { Self.placed($0, at: place) }
    }

    /// `playlist` with its videos' lengths (``videoLengths``).
    private func timed(_ playlist: Playlist) -> Playlist { playlist.timed(by: videoLengths) }

    /// Takes the length of the video `source` names (a file's path, an asset's URL), measured (`nil`: it could not
    /// be); the lengths of videos no playlist names any more are forgotten. The screens' items are found again at the
    /// next ``advancePlaylists(now:)``.
    /// - Returns: whether a length changed.
    @discardableResult
    public mutating func measured(length: Double?, ofVideo source: String) -> Bool {
        let named = Set(namedPlaylists.flatMap(\.items).filter(\.playsItsLength).map(\.source))
        let before = videoLengths
        // A paused playlist holds its item: a new length moves where that item falls in the cycle, not which one it is.
        let held = steering.compactMapValues { steered in
            steered.steered.pausedAt.map { timed(steered.steered).position(at: $0).index }
        }
        videoLengths[source] = length
        videoLengths = videoLengths.filter { named.contains($0.key) }
        for (screen, index) in held {
            guard var steered = steering[screen], let at = steered.steered.pausedAt else { continue }
            steered.steered = timed(steered.steered).starting(item: index, at: at)
            steering[screen] = steered
        }
        return videoLengths != before
    }

    private static func placed(_ playlist: Playlist, at place: Int) -> Playlist {
        var placed = playlist
        placed.offset = place
        return placed
    }

    /// The `[[schedule]]` the output follows: the one chosen for its screen at run time, else its rule's.
    public func schedule(of output: OutputInfo) -> Schedule? {
        scheduleName(of: output).flatMap { roles.config.schedules[$0] }
    }

    /// The name of the `[[schedule]]` the output follows (``schedule(of:)``): one chosen at run time while the config
    /// still has it (a reload may have removed it), else its rule's.
    public func scheduleName(of output: OutputInfo) -> String? {
        if let chosen = schedules[output.displayName], roles.config.schedules[chosen] != nil { return chosen }
        return roles.config.rule(for: output)?.schedule
    }

    /// The interrupt the output plays now: its screen's, while that is an external screen that is on (one that became
    /// the controller's, or is off by schedule, keeps it for later, or until it ends).
    public func interrupt(of output: OutputInfo) -> PlaylistInterrupt? {
        guard case .external = assignment.kind(of: output.registryName), scheduled[output.displayName] != .off else {
            return nil
        }
        return interrupts[output.displayName]?.timed(by: videoLengths)
    }

    /// Where the output's playlist is at `time` (``playlist(of:)``; an interrupt's counts from its epoch and
    /// switches at its end), nil without one.
    public func playlistPosition(of output: OutputInfo, at time: Double) -> (index: Int, started: Double, next: Double)?
    {
        if let interrupt = interrupt(of: output) { return interrupt.position(at: time) }
        return playlist(of: output)?.position(at: time)
    }

    /// The playlist item the output shows now, if it plays a playlist (an interrupt, or its mode's) and has one.
    public func playlistItem(of registryName: UInt32) -> (playlist: Playlist, index: Int)? {
        guard let output = roles.outputs.first(where: { $0.registryName == registryName }),
            let playlist = playlist(of: output), let index = playing[output.displayName],
            playlist.items.indices.contains(index),
            // None in its window: the playlist shows nothing (its first item stands for the empty cycle).
            playlist.items[index].isPlayable(at: Date().timeIntervalSince1970)
        else { return nil }
        return (playlist, index)
    }

    /// The image or video the output shows, if any: the one shown at run time while its mode is still `image` or
    /// `video`, else its config rule's when the mode is that rule's (external screens only).
    public func media(of registryName: UInt32) -> ShownMedia? {
        guard let output = roles.outputs.first(where: { $0.registryName == registryName }),
            case .external(let mode) = assignment.kind(of: registryName), mode == .image || mode == .video
        else { return nil }
        let kind: MediaKind = mode == .image ? .image : .video
        if let shown = media[output.displayName], shown.kind == kind { return shown }
        if stoppedMedia.contains(output.displayName) { return nil }
        guard let rule = roles.config.rule(for: output), rule.content == mode, let item = rule.media else { return nil }
        return ShownMedia(item: item, kind: kind)
    }

    /// The page the output shows, if any: the one opened at run time, else its config rule's `url` when its mode
    /// is `web` (for the controller's screen: when its rule says `content = "web"`).
    public func page(of registryName: UInt32) -> String? {
        guard let output = roles.outputs.first(where: { $0.registryName == registryName }) else { return nil }
        if let opened = pages[output.displayName] { return opened }
        if closedPages.contains(output.displayName) { return nil }
        guard let rule = roles.config.rule(for: output), let url = rule.url else { return nil }
        switch assignment.kind(of: registryName) {
        case .controller: return rule.content == .web ? url : nil
        case .external(let mode): return mode == .web ? url : nil
        case .web, .media, .slide: return nil
        }
    }

    /// Whether the screen on this output is on, as its schedule says (on, without one).
    public func power(of registryName: UInt32) -> ScreenPower {
        guard let output = roles.outputs.first(where: { $0.registryName == registryName }),
            scheduled[output.displayName] == .off
        else { return .on }
        return .scheduledOff
    }

    /// What the screen on this output shows: black while its schedule has it off, else an interrupt's item while one
    /// plays, else a page when it has one, else what its role and mode say.
    public func kind(of registryName: UInt32) -> ScreenKind {
        // Black rather than nothing: where the output cannot be turned off this is what shows, and where it can, the
        // last frame before it goes off is what a compositor may flash when it comes back.
        if power(of: registryName) == .scheduledOff { return .external(.blank) }
        // An interrupt plays over whatever the screen's mode shows, a page or a picture included.
        // An item whose asset is not cached yet gives way to the one before it (``shownItem(of:at:)``); with none to
        // show, the screen shows what it would without the playlist.
        if let output = roles.outputs.first(where: { $0.registryName == registryName }), interrupt(of: output) != nil,
            let (playlist, index) = playlistItem(of: registryName), let shown = shownItem(of: playlist, at: index)
        {
            return kind(showing: playlist, item: shown)
        }
        if let url = page(of: registryName) { return .web(url: url) }
        if let shown = media(of: registryName) { return .media(shown) }
        if let (playlist, index) = playlistItem(of: registryName), let shown = shownItem(of: playlist, at: index) {
            return kind(showing: playlist, item: shown)
        }
        return assignment.kind(of: registryName)
    }

    /// What the output's screen reads ahead of what it shows, as it will show it: first a `media.show` waiting for its
    /// start there (read for its answer, kept ready to play until the switch), then what its playlist reads ahead.
    public func readAhead(of registryName: UInt32) -> [MediaItem] {
        let starting = roles.outputs.first { $0.registryName == registryName }.flatMap {
            startingMedia[$0.displayName]?.item
        }
        return (starting.map { [$0] } ?? []) + playlistReadAhead(of: registryName)
    }

    /// What the playlist the output plays reads ahead of its turns, as its screen will show it. First, when its next
    /// turn plays a video, that video as it will play then (its clock start is the switch), so that its pipeline is
    /// ready to play on the switch, in step with every other screen switching then. Then its pictures, from the item
    /// after the one shown now round to the one before it, kept decoded so that a switch to a picture needs no read. A
    /// held playlist switches to nothing, a page is never read ahead, and an asset only once it is cached.
    func playlistReadAhead(of registryName: UInt32) -> [MediaItem] {
        guard let (playlist, index) = playlistItem(of: registryName), playlist.pausedAt == nil,
            let output = roles.outputs.first(where: { $0.registryName == registryName })
        else { return [] }
        let count = playlist.items.count
        let now = Date().timeIntervalSince1970
        let pictures = (1..<max(count, 1)).compactMap { step -> MediaItem? in
            let item = playlist.items[(index + step) % count]
            guard item.isPlayable(at: now) else { return nil }
            let path: String
            switch item.content {
            case .file(let file) where MediaKind(guessingFromName: file) == .image: path = file
            case .asset(let url) where item.assetKind == .image:
                guard let cached = availableAssets[url] else { return nil }
                path = cached
            default: return nil
            }
            return MediaItem(path: path, fit: playlist.fit, loop: true)
        }
        return (nextVideo(of: output, playing: index, after: now).map { [$0] } ?? []) + pictures
    }

    /// The video the output's playlist plays from its next switch, as ``kind(showing:item:at:)`` will give it then.
    /// Nil when that turn plays anything else or never comes, and when the switch is not one of the playlist's own
    /// turns (an interrupt ending, a schedule changing, an item's window opening or closing mid-turn): what plays then
    /// starts when it is ready, as without a read-ahead.
    private func nextVideo(of output: OutputInfo, playing index: Int, after now: Double) -> MediaItem? {
        guard let playlist = playlist(of: output), let position = playlistPosition(of: output, at: now) else {
            return nil
        }
        // The clock may have passed a switch that the timer, a millisecond late by design, has not made yet: that
        // one is next.
        let next = position.index != index ? position.started : position.next
        guard next.isFinite, next - now < 86_400 else { return nil }
        if let ends = interrupt(of: output)?.ends, ends <= next { return nil }
        if let change = schedule(of: output)?.nextChange(after: Date(timeIntervalSince1970: now), in: timeZone),
            change.timeIntervalSince1970 <= next
        {
            return nil
        }
        guard let turn = playlistPosition(of: output, at: next), abs(turn.started - next) < 0.001 else { return nil }
        let item = playlist.items[turn.index]
        guard item.isPlayable(at: next), !item.isAsset || availableAssets[item.source] != nil,
            case .media(let shown) = kind(showing: playlist, item: turn.index, at: next), shown.kind == .video
        else { return nil }
        return shown.item
    }

    /// What a screen playing item `index` of `playlist` at `time` shows (an asset: its cached file, which the caller
    /// checked).
    private func kind(showing playlist: Playlist, item index: Int, at time: Double = Date().timeIntervalSince1970)
        -> ScreenKind
    {
        let item = playlist.items[index]
        switch item.content {
        case .page(let url): return .web(url: url)
        case .text(let words): return .slide(.text(words))
        case .card(let words): return .slide(.card(words))
        case .blank: return .external(.blank)
        case .file, .asset: break
        }
        // A playlist's files loop (a video shorter than its time plays again) and are read like any media file;
        // the kind here only names it (the file's first bytes decide how it is decoded).
        let kind = item.assetKind ?? MediaKind(guessingFromName: item.source)
        let path = item.isAsset ? availableAssets[item.source] ?? item.source : item.source
        // A video that plays its own length plays once (its last frame stays should the switch come a moment later).
        var shown = MediaItem(path: path, fit: playlist.fit, loop: !item.playsItsLength)
        if kind == .video {
            // A video plays where the clock says: from its item's start, which stays the same for every render pass of
            // one turn. To the millisecond, so that the two ways of reaching a start (the sum of the items before it,
            // the number of cycles since the epoch) give the same value, and with it the same asset.
            let start = playlist.start(ofItem: index, at: time)
            shown.clockStart = (start * 1000).rounded() / 1000
        }
        return .media(ShownMedia(item: shown, kind: kind))
    }

    /// Logs a message for every screen (`screen` nil) or one connected screen, shown for `ttl` seconds if given.
    @discardableResult
    public mutating func receive(text: String, screen: String?, ttl: Double? = nil, at time: Date = Date())
        throws(UnknownScreenError) -> LoggedMessage
    {
        if let screen { _ = try roles.output(named: screen) }
        return log.append(text: text, screen: screen, at: time, expiresAt: ttl.map { time.addingTimeInterval($0) })
    }

    /// Clears what `screen` shows (nil: the whole log). - Returns: how many messages it stopped showing.
    @discardableResult
    public mutating func clearMessages(screen: String?) throws(UnknownScreenError) -> Int {
        if let screen { _ = try roles.output(named: screen) }
        return log.clear(screen: screen)
    }

    /// Removes messages whose time is up. - Returns: them.
    public mutating func expireMessages(at now: Date) -> [LoggedMessage] { log.removeExpired(at: now) }

    /// What to save: run-time roles and modes, cards, and the log (oldest first).
    public var persistentState: PersistentState {
        PersistentState(
            roles: roles.memory.roles, contents: roles.memory.contents, cards: cards.cards,
            messages: log.newestFirst.reversed(), pages: pages, closedPages: closedPages, media: media,
            stoppedMedia: stoppedMedia, playlists: playlists, interrupts: interrupts, steering: steering,
            schedules: schedules, videoLengths: videoLengths)
    }

    private func checkCardScreen(_ screen: String) throws(CardError) {
        do {
            _ = try roles.output(named: screen)
        } catch {
            throw .unknownScreen(error)
        }
    }
}
