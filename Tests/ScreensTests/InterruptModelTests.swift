import Foundation
import Outputs
import Testing

@testable import Screens

/// Interrupts in the model: played over whatever a screen shows from their first item, ended by their time or by
/// hand, after which the screen shows what the clock says; saved, and dropped when they ended while nobody ran.
@Suite struct InterruptModelTests {
    /// A model with DP-1 and HDMI-A-2 connected, and the external one's name and registry name.
    private static func model(config: RoleConfig = RoleConfig()) -> (ScreenModel, external: String, name: UInt32) {
        var model = ScreenModel(config: config)
        model.update(outputs: MediaModelTests.outputs)
        let external = model.assignment.controller == 1 ? "HDMI-A-2" : "DP-1"
        return (model, external, external == "HDMI-A-2" ? 2 : 1)
    }

    private static func picture(_ path: String) -> ScreenKind {
        .media(ShownMedia(item: MediaItem(path: path, fit: .contain, loop: true), kind: .image))
    }

    /// Two 2 s pictures from `epoch`.
    private static func announcement(epoch: Double, ends: Double?) -> PlaylistInterrupt {
        PlaylistInterrupt(
            playlist: Playlist(
                items: [.init(source: "/ann-1.png", seconds: 2), .init(source: "/ann-2.png", seconds: 2)],
                epoch: epoch),
            ends: ends)
    }

    @Test func itWinsOverARunTimePlaylistAndEndsOnTheItemTheClockSays() throws {
        let (start, external, name) = Self.model()
        var model = start
        // A 15 s cycle from 0: /a.png from 90 to 100, then the page for 5 s.
        try model.setPlaylist(
            Playlist(items: [.init(source: "/a.png", seconds: 10), .init(source: "https://example.org/", seconds: 5)]),
            onScreen: external, now: 90)
        try model.interrupt(Self.announcement(epoch: 93, ends: 98), onScreen: external, now: 93)
        #expect(model.kind(of: name) == Self.picture("/ann-1.png"))
        #expect(model.assignment.kind(of: name) == .external(.playlist), "the mode stays")
        #expect(model.nextPlaylistSwitch(after: 93) == 95)
        #expect(model.advancePlaylists(now: 95).map(\.index) == [1])
        #expect(model.kind(of: name) == Self.picture("/ann-2.png"))
        #expect(model.advancePlaylists(now: 97).map(\.index) == [0])
        // Its next item would start at 99: the end comes first.
        #expect(model.nextPlaylistSwitch(after: 97) == 98)
        #expect(model.advancePlaylists(now: 97.9).isEmpty)
        // The playlist's item at 98 has the interrupt's index (0): a change all the same.
        let changed = model.advancePlaylists(now: 98)
        #expect(changed.map(\.screen) == [external] && changed.map(\.index) == [0])
        #expect(model.kind(of: name) == Self.picture("/a.png"))
        #expect(model.interrupts.isEmpty)
        // Told at once by whoever asks for the next switch, then told once.
        #expect(model.nextPlaylistSwitch(after: 98) == 98)
        let ended = model.takeEndedInterrupts()
        #expect(ended.map(\.screen) == [external] && ended.map(\.ended) == [98])
        #expect(model.takeEndedInterrupts().isEmpty)
        #expect(model.nextPlaylistSwitch(after: 98) == 100)
    }

    @Test func itWinsOverAScheduleAndTheScheduleGoesOn() throws {
        var model = Self.model(config: try RoleConfig.parse(ScheduleConfigTests.config)).0
        model.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let thursday = ScheduleTests.time("2026-11-26 10:59", "Europe/Berlin").timeIntervalSince1970
        model.advancePlaylists(now: thursday)
        try model.interrupt(
            Self.announcement(epoch: thursday, ends: thursday + 90), onScreen: "HDMI-A-2", now: thursday)
        #expect(model.kind(of: 2) == Self.picture("/ann-1.png"))
        // The schedule changes to "menu" at 11:00, under the interrupt; at its end the screen shows the menu.
        model.advancePlaylists(now: thursday + 60)
        #expect(model.kind(of: 2) == Self.picture("/ann-1.png"))
        #expect(model.nextPlaylistSwitch(after: thursday + 89) == thursday + 90)
        #expect(model.advancePlaylists(now: thursday + 90).map(\.screen) == ["HDMI-A-2"])
        #expect(model.playlistItem(of: 2)?.playlist.items.first?.source == "/srv/menu.png")
    }

    /// Whatever the mode: a page is interrupted and comes back, its mode never touched.
    @Test func untilClearedOverAPage() throws {
        let (start, external, name) = Self.model()
        var model = start
        try model.openPage(url: "https://example.org/", onScreen: external)
        let lone = PlaylistInterrupt(playlist: Playlist(items: [.init(source: "/ann.png", seconds: 5)], epoch: 10))
        try model.interrupt(lone, onScreen: external, now: 10)
        #expect(model.kind(of: name) == Self.picture("/ann.png"))
        // One item and no end: nothing to wake for, and it outlasts any time.
        #expect(model.nextPlaylistSwitch(after: 10) == nil)
        #expect(model.advancePlaylists(now: 1e9).isEmpty)
        #expect(model.interrupts[external] == lone)
        #expect(try model.clearInterrupt(onScreen: external, now: 20))
        #expect(model.kind(of: name) == .web(url: "https://example.org/"))
        #expect(model.assignment.kind(of: name) == .external(.web))
        #expect(try model.clearInterrupt(onScreen: external, now: 20) == false)
        #expect(throws: UnknownScreenError.self) { try model.clearInterrupt(onScreen: "DP-9", now: 20) }
        #expect(throws: UnknownScreenError.self) { try model.interrupt(lone, onScreen: "DP-9", now: 20) }
        // Ended by hand, nobody is owed a notice of its end by time.
        #expect(model.takeEndedInterrupts().isEmpty)
    }

    /// An interrupt reaching a kiosk before its epoch (a clock a little behind) shows its first item until then.
    @Test func beforeItsEpochTheFirstItemShows() {
        let interrupt = Self.announcement(epoch: 100, ends: 103)
        #expect(interrupt.position(at: 99.5) == (0, 100, 102))
        #expect(interrupt.position(at: 102.5) == (1, 102, 103))
        #expect(!interrupt.hasEnded(at: 102.9) && interrupt.hasEnded(at: 103))
    }

    @Test func restoredAfterARestartUnlessItEnded() throws {
        let (start, external, name) = Self.model()
        var model = start
        let now = Date().timeIntervalSince1970
        let running = Self.announcement(epoch: now, ends: now + 3600)
        try model.interrupt(running, onScreen: external, now: now)
        let data = try JSONEncoder().encode(model.persistentState)
        var restored = ScreenModel(state: try JSONDecoder().decode(PersistentState.self, from: data))
        restored.update(outputs: MediaModelTests.outputs)
        #expect(restored.interrupts == [external: running])
        #expect(restored.kind(of: name) == Self.picture("/ann-1.png"))

        let ended = Self.announcement(epoch: now - 60, ends: now - 1)
        var late = ScreenModel(state: PersistentState(interrupts: [external: ended, "DP-9": running]))
        late.update(outputs: MediaModelTests.outputs)
        #expect(late.interrupts == ["DP-9": running], "the ended one is dropped, the one for a screen away kept")
        #expect(late.kind(of: name) == .external(.messages))
        #expect(late.takeEndedInterrupts().isEmpty)
    }

    /// A screen that is not connected keeps its interrupt until its end, which still wakes the model.
    @Test func aScreenAwayKeepsItsInterruptUntilItEnds() throws {
        let (start, external, _) = Self.model()
        var model = start
        let now = Date().timeIntervalSince1970
        try model.interrupt(Self.announcement(epoch: now, ends: now + 600), onScreen: external, now: now)
        model.update(outputs: MediaModelTests.outputs.filter { $0.displayName != external })
        #expect(model.interrupts[external] != nil)
        #expect(model.nextPlaylistSwitch(after: now + 1) == now + 600)
        #expect(model.advancePlaylists(now: now + 600).isEmpty)
        #expect(model.takeEndedInterrupts().map(\.screen) == [external])
        #expect(model.interrupts.isEmpty)
    }
}
