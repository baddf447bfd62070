import Foundation
import Outputs
import Testing

@testable import Screens

/// Images and videos in the model: the config's rules, `media.show`/`media.stop`, and what a restart restores.
@Suite struct MediaModelTests {
    static let outputs = [monitor(1, "DP-1", serial: "A"), monitor(2, "HDMI-A-2", serial: "B")]

    @Test func aRuleShowsAFileWithItsFitTurnAndLoop() throws {
        let config = try RoleConfig.parse(
            """
            [[rule]]
            match = { name = "HDMI-A-2" }
            role = "external"
            content = "video"
            path = "/srv/signage/loop.mp4"
            fit = "cover"
            rotate = 270
            loop = true
            audio = true
            """)
        #expect(
            config.rules.first?.media
                == MediaItem(
                    path: "/srv/signage/loop.mp4", fit: .cover, rotation: .threeQuarters, loop: true, audio: true))
        var model = ScreenModel(config: config)
        model.update(outputs: Self.outputs)
        #expect(model.kind(of: 2) == .media(ShownMedia(item: config.rules[0].media!, kind: .video)))
        #expect(model.soundScreen(otherThan: "DP-1") == "HDMI-A-2")
        #expect(model.soundScreen(otherThan: "HDMI-A-2") == nil)
    }

    @Test func aRuleIsRefusedPreciselyWhenItsMediaKeysDoNotFit() {
        let cases: [(String, String)] = [
            (#"content = "image""#, "missing key 'rule[1].path'"),
            (#"content = "mirror"\#npath = "/x.png""#, #"path needs content = "image" or "video" in the same rule"#),
            (
                #"content = "image"\#npath = "/x.png"\#nfit = "zoom""#,
                "expected one of: contain, cover, stretch, center"
            ),
            (#"content = "image"\#npath = "/x.png"\#nrotate = 45"#, "expected 0, 90, 180 or 270"),
            (#"content = "video"\#npath = "/x.mp4"\#nloop = "yes""#, "must be true or false"),
            (#"content = "video"\#npath = "/x.mp4"\#naudio = 1"#, "must be true or false"),
            (#"content = "mirror"\#naudio = true"#, #"audio needs content = "image" or "video" in the same rule"#),
        ]
        for (keys, expected) in cases {
            do {
                _ = try RoleConfig.parse("[[rule]]\nmatch = { name = \"DP-1\" }\nrole = \"external\"\n\(keys)\n")
                Issue.record("accepted \(keys)")
            } catch {
                #expect(error.description.contains(expected), "\(error.description)")
            }
        }
    }

    @Test func showingAndStoppingMediaIsRememberedAcrossARestart() throws {
        var model = ScreenModel()
        model.update(outputs: Self.outputs)
        let external = model.assignment.controller == 1 ? "HDMI-A-2" : "DP-1"
        let name: UInt32 = external == "HDMI-A-2" ? 2 : 1
        let shown = ShownMedia(item: MediaItem(path: "/srv/menu.png", fit: .contain), kind: .image)
        try model.showMedia(shown, onScreen: external)
        #expect(model.kind(of: name) == .media(shown))
        #expect(model.assignment.kind(of: name) == .external(.image))

        var restored = ScreenModel(state: model.persistentState)
        restored.update(outputs: Self.outputs)
        #expect(restored.kind(of: name) == .media(shown))

        #expect(try restored.stopMedia(onScreen: external))
        #expect(restored.kind(of: name) == .external(.messages))
        #expect(try restored.stopMedia(onScreen: external) == false)
    }

    @Test func aPageAndMediaReplaceEachOther() throws {
        var model = ScreenModel()
        model.update(outputs: Self.outputs)
        let external = model.assignment.controller == 1 ? "HDMI-A-2" : "DP-1"
        let name: UInt32 = external == "HDMI-A-2" ? 2 : 1
        try model.openPage(url: "https://example.org/", onScreen: external)
        let shown = ShownMedia(item: MediaItem(path: "/srv/loop.mp4", loop: true), kind: .video)
        try model.showMedia(shown, onScreen: external)
        #expect(model.kind(of: name) == .media(shown))
        try model.openPage(url: "https://example.org/", onScreen: external)
        #expect(model.kind(of: name) == .web(url: "https://example.org/"))
        #expect(model.media(of: name) == nil)
        // Setting `video` again by hand does not bring back the file the page replaced.
        try model.closePage(onScreen: external)
        try model.set(content: .video, forScreen: external)
        #expect(model.kind(of: name) == .external(.video))
    }
}

/// Playlists in the model: the item the clock says, switches, and what a restart restores.
@Suite struct PlaylistModelTests {
    @Test func theScreenShowsTheItemTheClockSaysAndSwitchesAtItsEnd() throws {
        var model = ScreenModel()
        model.update(outputs: MediaModelTests.outputs)
        let external = model.assignment.controller == 1 ? "HDMI-A-2" : "DP-1"
        let name: UInt32 = external == "HDMI-A-2" ? 2 : 1
        let playlist = Playlist(
            items: [.init(source: "/a.png", seconds: 10), .init(source: "https://example.org/", seconds: 5)],
            fit: .cover)
        // 90 s after the epoch (0) is the start of a 15 s cycle: the picture, until 100.
        try model.setPlaylist(playlist, onScreen: external, now: 90)
        #expect(
            model.kind(of: name)
                == .media(ShownMedia(item: MediaItem(path: "/a.png", fit: .cover, loop: true), kind: .image)))
        #expect(model.nextPlaylistSwitch(after: 90) == 100)
        #expect(model.advancePlaylists(now: 99.9).isEmpty)
        let changed = model.advancePlaylists(now: 100)
        #expect(changed.map(\.screen) == [external] && changed.map(\.index) == [1])
        #expect(model.kind(of: name) == .web(url: "https://example.org/"))

        var restored = ScreenModel(state: model.persistentState)
        restored.update(outputs: MediaModelTests.outputs)
        #expect(restored.playlists[external] == playlist)
        #expect(try restored.clearPlaylist(onScreen: external))
        #expect(restored.kind(of: name) == .external(.messages))
    }
}

/// A playlist's video carries its item's start by the clock, so that it plays from where the clock says.
@Suite struct PlaylistVideoStartTests {
    /// A model of ``MediaModelTests/outputs``, with its external screen's name and registry name.
    static func modelWithAnExternalScreen() -> (ScreenModel, String, UInt32) {
        var model = ScreenModel()
        model.update(outputs: MediaModelTests.outputs)
        let external = model.assignment.controller == 1 ? "HDMI-A-2" : "DP-1"
        return (model, external, external == "HDMI-A-2" ? 2 : 1)
    }

    @Test func aPlaylistsVideoItemCarriesItsStartAndAnImageNone() throws {
        var (model, external, name) = Self.modelWithAnExternalScreen()
        let now = Date().timeIntervalSince1970
        // The cycle began 8 s ago with the video, which plays for an hour.
        let epoch = (now - 8).rounded(.down)
        let playlist = Playlist(
            items: [.init(source: "/srv/promo.mp4", seconds: 3600), .init(source: "/srv/menu.png", seconds: 10)],
            fit: .cover, epoch: epoch)
        try model.setPlaylist(playlist, onScreen: external, now: now)
        let video = MediaItem(path: "/srv/promo.mp4", fit: .cover, loop: true, clockStart: epoch)
        #expect(model.kind(of: name) == .media(ShownMedia(item: video, kind: .video)))
        // The same on every render pass of the turn: the same asset, the same pipeline.
        #expect(model.kind(of: name) == model.kind(of: name))

        // The image's turn: no clock start (a picture has no timeline).
        model.advancePlaylists(now: epoch + 3600.5)
        #expect(
            model.kind(of: name)
                == .media(
                    ShownMedia(item: MediaItem(path: "/srv/menu.png", fit: .cover, loop: true), kind: .image)))

        // A file shown by media.show starts at its beginning.
        let shown = ShownMedia(item: MediaItem(path: "/srv/promo.mp4", loop: true), kind: .video)
        try model.showMedia(shown, onScreen: external)
        #expect(model.kind(of: name) == .media(shown))
    }

    /// A screen's next video is read ahead as it will play on its switch (its clock start is the switch), then its
    /// pictures; not when the switch is an interrupt's end, which plays something else.
    @Test func theNextVideoIsReadAheadStartingOnItsSwitch() throws {
        var (model, external, name) = Self.modelWithAnExternalScreen()
        let now = Date().timeIntervalSince1970
        // A cycle of a minute each that began 10 s ago: a.mp4 now, b.mp4 from epoch + 60, then c.png.
        let epoch = (now - 10).rounded(.down)
        let playlist = Playlist(
            items: [
                .init(source: "/srv/a.mp4", seconds: 60), .init(source: "/srv/b.mp4", seconds: 60),
                .init(source: "/srv/c.png", seconds: 60),
            ],
            fit: .cover, epoch: epoch)
        try model.setPlaylist(playlist, onScreen: external, now: now)
        let next = MediaItem(path: "/srv/b.mp4", fit: .cover, loop: true, clockStart: epoch + 60)
        let picture = MediaItem(path: "/srv/c.png", fit: .cover, loop: true)
        #expect(model.readAhead(of: name) == [next, picture])

        // An interrupt that ends as its second video would start: what plays then is not that video.
        let interruption = Playlist(
            items: [.init(source: "/srv/x.mp4", seconds: 30), .init(source: "/srv/y.mp4", seconds: 30)], epoch: now)
        try model.interrupt(PlaylistInterrupt(playlist: interruption, ends: now + 30), onScreen: external, now: now)
        #expect(model.readAhead(of: name).allSatisfy { $0.clockStart == nil })
    }

    @Test func aListOfOneVideoStartsAtTheEpochForEver() throws {
        var (model, external, name) = Self.modelWithAnExternalScreen()
        let playlist = Playlist(items: [.init(source: "/srv/loop.webm", seconds: 20)], epoch: 1_700_000_000.25)
        try model.setPlaylist(playlist, onScreen: external, now: Date().timeIntervalSince1970)
        guard case .media(let shown) = model.kind(of: name) else {
            Issue.record("\(model.kind(of: name))")
            return
        }
        #expect(shown.item.clockStart == 1_700_000_000.25)
    }
}

/// `[[playlist]]` in the config, played by the screens whose rule says `content = "playlist"`.
@Suite struct PlaylistConfigTests {
    static let config = """
        [[playlist]]
        name = "menu"
        items = [{ source = "/srv/breakfast.png", seconds = 20 }, { source = "https://example.org/", seconds = 10 }]
        fit = "cover"

        [[rule]]
        match = { name = "HDMI-A-2" }
        role = "external"
        content = "playlist"
        playlist = "menu"
        """

    @Test func aRulesScreenPlaysItsNamedPlaylist() throws {
        let config = try RoleConfig.parse(Self.config)
        #expect(
            config.playlists["menu"]
                == Playlist(
                    items: [
                        .init(source: "/srv/breakfast.png", seconds: 20),
                        .init(source: "https://example.org/", seconds: 10),
                    ], fit: .cover))
        var model = ScreenModel(config: config)
        model.update(outputs: MediaModelTests.outputs)
        let (playlist, index) = try #require(model.playlistItem(of: 2))
        #expect(playlist.fit == .cover)
        #expect(index == playlist.position(at: Date().timeIntervalSince1970).index)
        #expect(model.nextPlaylistSwitch(after: 0) == 20)
    }

    /// A rule's spread: its screens show consecutive items of its playlist, in the order it lists them.
    @Test func aRulesSpreadPlacesItsScreensInOrder() throws {
        let config = try RoleConfig.parse(
            Self.config.replacingOccurrences(of: "name = \"HDMI-A-2\"", with: "name = \"*\"")
                + "\nspread = [\"DP-1\", \"HDMI-A-2\"]\n")
        var model = ScreenModel(config: config)
        model.update(outputs: MediaModelTests.outputs)
        let offsets = model.roles.outputs.compactMap { model.playlist(of: $0)?.offset }
        // Both screens are external: DP-1 shows the clock's item, HDMI-A-2 (second in the spread) the one after it.
        #expect(offsets == [0, 1])
        let time = Date().timeIntervalSince1970
        #expect(model.playlistItem(of: 2)?.index == (config.playlists["menu"]!.position(at: time).index + 1) % 2)
    }

    /// An item's window in the config: local times, a day meaning its first moment for `from` and its last for
    /// `until`.
    @Test func anItemsWindowIsReadInLocalTime() throws {
        let config = try RoleConfig.parse(
            """
            [[playlist]]
            name = "christmas"
            items = [
              { source = "/srv/tree.png", seconds = 10, from = "2026-12-24 18:00", until = "2026-12-26" },
              { source = "/srv/menu.png", seconds = 10, from = "2026-12-01T06:30" },
            ]
            """)
        let items = try #require(config.playlists["christmas"]?.items)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        func local(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Double {
            calendar.date(from: DateComponents(year: 2026, month: 12, day: day, hour: hour, minute: minute))!
                .timeIntervalSince1970
        }
        #expect(items[0].from == local(24, 18) && items[0].until == local(27, 0))
        #expect(items[1].from == local(1, 6, 30) && items[1].until == nil)
        do {
            _ = try RoleConfig.parse(
                "[[playlist]]\nname = \"x\"\nitems = [{ source = \"/a.png\", seconds = 1, until = \"soon\" }]\n")
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("'playlist[1].items[1].until' = \"soon\": a local time"), "\(error)")
        }
    }

    @Test func aBrokenPlaylistIsRefusedWithItsPlace() {
        let cases: [(String, String)] = [
            (
                Self.config.replacingOccurrences(of: "playlist = \"menu\"", with: "playlist = \"lunch\""),
                "'rule[1].playlist' = \"lunch\": no [[playlist]] has that name (known: menu)"
            ),
            (
                Self.config.replacingOccurrences(of: "seconds = 20", with: "seconds = 0"),
                "'playlist[1].items' = \"…\": item 1: seconds must be 0.5 to 86400"
            ),
            (
                Self.config.replacingOccurrences(of: "seconds = 20", with: "secs = 20"),
                "unknown key 'playlist[1].items[1].secs'"
            ),
            (
                Self.config.replacingOccurrences(of: "\nplaylist = \"menu\"", with: ""),
                "give either playlist = NAME or schedule = NAME"
            ),
            (
                Self.config + "\n[[playlist]]\nname = \"menu\"\nitems = [{ source = \"/a.png\", seconds = 1 }]\n",
                "'playlist[2].name' = \"menu\": a second playlist of that name"
            ),
            (
                Self.config + "\nspread = [\"HDMI-A-2\", \"HDMI-A-2\"]\n",
                "'rule[1].spread[2]' = \"HDMI-A-2\": a screen listed twice"
            ),
            (
                Self.config + "\nspread = \"HDMI-A-2\"\n",
                "'rule[1].spread' = \"…\": spread is a list of screens"
            ),
        ]
        for (text, expected) in cases {
            do {
                _ = try RoleConfig.parse(text)
                Issue.record("accepted: \(expected)")
            } catch {
                #expect(error.description.contains(expected), "\(error.description)")
            }
        }
    }
}
