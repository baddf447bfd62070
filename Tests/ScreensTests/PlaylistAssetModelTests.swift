import Foundation
import Outputs
import Testing

@testable import Screens

/// Playlist items by URL that are assets: shown from the cache once there, skipped (the item before them shown
/// instead) until then, fetched ahead for every playlist that may play, and their `sha256` in the config.
@Suite struct PlaylistAssetModelTests {
    static let picture = "https://cdn.example.org/menu/breakfast.png?v=3"
    static let clip = "https://cdn.example.org/promo.mp4"
    static let playlist = Playlist(
        items: [
            .init(source: "/srv/welcome.png", seconds: 10), .init(source: picture, seconds: 10),
            .init(source: clip, seconds: 10),
        ], fit: .cover)

    /// A model showing ``playlist`` on its external screen; the screen's name and its output's registry name.
    static func model(at now: Double) throws -> (ScreenModel, String, UInt32) {
        var model = ScreenModel()
        model.update(outputs: MediaModelTests.outputs)
        let external = model.assignment.controller == 1 ? "HDMI-A-2" : "DP-1"
        try model.setPlaylist(playlist, onScreen: external, now: now)
        return (model, external, external == "HDMI-A-2" ? 2 : 1)
    }

    static func picture(_ path: String) -> ScreenKind {
        .media(ShownMedia(item: MediaItem(path: path, fit: .cover, loop: true), kind: .image))
    }

    @Test func anAssetNotCachedYetGivesWayToTheItemBeforeIt() throws {
        // 15 s into the cycle: the picture by URL's turn, not cached.
        var (model, _, name) = try Self.model(at: 15)
        #expect(model.playlistItem(of: name)?.index == 1)
        #expect(model.shownItem(of: Self.playlist, at: 1) == 0)
        #expect(model.kind(of: name) == Self.picture("/srv/welcome.png"))
        // Cached: its local file is what the screen reads.
        model.availableAssets = [Self.picture: "/cache/abc.png"]
        #expect(model.kind(of: name) == Self.picture("/cache/abc.png"))
        // The video's turn, not cached: the picture before it stays.
        model.advancePlaylists(now: 25)
        #expect(model.playlistItem(of: name)?.index == 2)
        #expect(model.kind(of: name) == Self.picture("/cache/abc.png"))
    }

    @Test func theWalkBackWrapsAndAPlaylistWithNothingToShowShowsWhatTheScreenWouldWithoutIt() throws {
        let onlyAssets = Playlist(
            items: [.init(source: Self.picture, seconds: 10), .init(source: Self.clip, seconds: 10)], fit: .cover)
        var model = ScreenModel()
        model.update(outputs: MediaModelTests.outputs)
        let external = model.assignment.controller == 1 ? "HDMI-A-2" : "DP-1"
        let name: UInt32 = external == "HDMI-A-2" ? 2 : 1
        try model.setPlaylist(onlyAssets, onScreen: external, now: 5)
        #expect(model.shownItem(of: onlyAssets, at: 0) == nil)
        #expect(model.kind(of: name) == .external(.playlist))
        // The first item's turn with only the last cached: the walk back wraps round to it.
        model.availableAssets = [Self.clip: "/cache/clip.mp4"]
        #expect(model.shownItem(of: onlyAssets, at: 0) == 1)
        guard case .media(let shown) = model.kind(of: name) else {
            Issue.record("\(model.kind(of: name))")
            return
        }
        #expect(shown.kind == .video && shown.item.path == "/cache/clip.mp4")
        // The clip plays from its own last turn's start, the same on every pass.
        #expect(shown.item.clockStart == onlyAssets.start(ofItem: 1, at: Date().timeIntervalSince1970))
    }

    @Test func everyPlaylistThatMayPlayNamesItsAssets() throws {
        let config = try RoleConfig.parse(
            """
            [[playlist]]
            name = "ruled"
            items = [{ source = "https://a.example/x.png", seconds = 10, sha256 = "\(String(repeating: "AB", count: 32))" }]
            [[playlist]]
            name = "scheduled"
            items = [{ source = "https://a.example/y.webm", seconds = 10 }, { source = "https://a.example/page", seconds = 5 }]
            [[playlist]]
            name = "unused"
            items = [{ source = "https://a.example/z.png", seconds = 10 }]
            [[schedule]]
            name = "day"
            fallback = "scheduled"
            [[rule]]
            match = { name = "DP-1" }
            role = "external"
            content = "playlist"
            playlist = "ruled"
            """)
        var model = ScreenModel(config: config)
        model.update(outputs: MediaModelTests.outputs)
        try model.setPlaylist(Self.playlist, onScreen: "HDMI-A-2", now: 0)
        #expect(
            model.wantedAssets == [
                "https://a.example/x.png": String(repeating: "ab", count: 32), "https://a.example/y.webm": nil,
                Self.picture: nil, Self.clip: nil,
            ])
    }

    @Test func theConfigTakesAnAssetsChecksumAndRefusesABadOne() throws {
        let sha = String(repeating: "0123456789ABCDEF", count: 4)
        let config = try RoleConfig.parse(
            """
            [[playlist]]
            name = "p"
            items = [{ source = "https://a.example/x.png", seconds = 10, sha256 = "\(sha)" }]
            """)
        #expect(config.playlists["p"]?.items.first?.sha256 == sha.lowercased())
        for (item, words) in [
            ("{ source = \"https://a.example/x.png\", seconds = 10, sha256 = \"abc\" }", "not 64 hexadecimal digits"),
            ("{ source = \"https://a.example/x.png\", seconds = 10, sha256 = 12 }", "sha256"),
            ("{ source = \"https://a.example/page\", seconds = 10, sha256 = \"\(sha)\" }", "only an image or video"),
            ("{ source = \"/srv/x.png\", seconds = 10, sha256 = \"\(sha)\" }", "only an image or video"),
        ] {
            do {
                _ = try RoleConfig.parse("[[playlist]]\nname = \"p\"\nitems = [\(item)]\n")
                Issue.record("accepted \(item)")
            } catch {
                #expect("\(error)".contains("playlist[1].items[1].sha256"), "\(error)")
                #expect("\(error)".contains(words), "\(error)")
            }
        }
    }
}
