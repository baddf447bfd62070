import Foundation
import Messaging
import Outputs
import Screens
import Testing

@testable import Product

/// A video that plays its own length joins its playlist once measured: the screen goes to the item the clock now
/// says, the length is saved, and a video that cannot be measured is reported to the screens that play it.
@Suite struct PlaylistVideoLengthProductTests {
    static func output(_ registryName: UInt32, _ name: String) -> OutputInfo {
        PlaylistAssetProductTests.output(registryName, name)
    }

    @Test func aMeasuredVideoJoinsThePlaylistAndTheScreenShowsIt() throws {
        var product = ProductController(model: ScreenModel(), store: StateStore(path: "/nonexistent/state.json"))
        _ = product.outputsChanged([Self.output(1, "HEADLESS-1"), Self.output(2, "HEADLESS-2")])
        let external = product.model.assignment.controller == 1 ? "HEADLESS-2" : "HEADLESS-1"
        let name: UInt32 = external == "HEADLESS-2" ? 2 : 1
        // The video alone, with a picture whose window closed long ago: nothing to play until the video is measured.
        let playlist = Playlist(items: [
            .init(source: "/srv/promo.mp4", seconds: nil), .init(source: "/srv/old.png", seconds: 5, until: 1),
        ])
        _ = product.execute(.setPlaylist(screen: external, playlist: playlist))
        #expect(product.kind(of: name) == .external(.playlist))
        #expect(product.model.videosPlayingTheirLength == ["/srv/promo.mp4": "/srv/promo.mp4"])

        let measured = product.measured(length: 7.5, ofVideo: "/srv/promo.mp4")
        #expect(measured.changes.screens.contains(external))
        #expect(measured.changes.state)
        guard case .media(let shown) = product.kind(of: name) else {
            Issue.record("\(product.kind(of: name))")
            return
        }
        #expect(shown.item.path == "/srv/promo.mp4" && shown.kind == .video)
        #expect(product.model.persistentState.videoLengths == ["/srv/promo.mp4": 7.5])
        // Its turn lasts its length.
        let output = try #require(product.outputs.first { $0.displayName == external })
        #expect(product.model.playlist(of: output)?.items[0].duration == 7.5)
        // The same length again changes nothing.
        #expect(product.measured(length: 7.5, ofVideo: "/srv/promo.mp4").changes.isEmpty)
    }

    @Test func aVideoThatCannotBeMeasuredIsReportedWhereItPlays() {
        var product = ProductController(model: ScreenModel(), store: StateStore(path: "/nonexistent/state.json"))
        _ = product.outputsChanged([Self.output(1, "HEADLESS-1"), Self.output(2, "HEADLESS-2")])
        let external = product.model.assignment.controller == 1 ? "HEADLESS-2" : "HEADLESS-1"
        let playlist = Playlist(items: [
            .init(source: "/srv/promo.mp4", seconds: nil), .init(source: "/srv/menu.png", seconds: 5),
        ])
        _ = product.execute(.setPlaylist(screen: external, playlist: playlist))
        _ = product.measured(length: 7.5, ofVideo: "/srv/promo.mp4")
        // Its file is gone at the next measurement: out of the cycle, and said.
        let failed = product.measured(length: nil, ofVideo: "/srv/promo.mp4", failure: "no such file: /srv/promo.mp4")
        #expect(
            failed.events.contains(
                .mediaError(screen: external, path: "/srv/promo.mp4", error: "no such file: /srv/promo.mp4")))
        #expect(product.model.videoLengths.isEmpty)
        let output = product.outputs.first { $0.displayName == external }!
        #expect(product.model.playlist(of: output)?.playable(at: Date().timeIntervalSince1970) == [1])
    }

    @Test func lengthsOfVideosNoPlaylistNamesAreForgotten() {
        var product = ProductController(model: ScreenModel(), store: StateStore(path: "/nonexistent/state.json"))
        _ = product.outputsChanged([Self.output(1, "HEADLESS-1"), Self.output(2, "HEADLESS-2")])
        let external = product.model.assignment.controller == 1 ? "HEADLESS-2" : "HEADLESS-1"
        _ = product.execute(
            .setPlaylist(screen: external, playlist: Playlist(items: [.init(source: "/srv/a.mp4", seconds: nil)])))
        _ = product.measured(length: 3, ofVideo: "/srv/a.mp4")
        _ = product.execute(
            .setPlaylist(screen: external, playlist: Playlist(items: [.init(source: "/srv/b.mp4", seconds: nil)])))
        _ = product.measured(length: 4, ofVideo: "/srv/b.mp4")
        #expect(product.model.videoLengths == ["/srv/b.mp4": 4])
    }

    @Test func aPausedPlaylistHoldsItsItemWhenALengthArrives() throws {
        var product = ProductController(model: ScreenModel(), store: StateStore(path: "/nonexistent/state.json"))
        _ = product.outputsChanged([Self.output(1, "HEADLESS-1"), Self.output(2, "HEADLESS-2")])
        let external = product.model.assignment.controller == 1 ? "HEADLESS-2" : "HEADLESS-1"
        let output = try #require(product.outputs.first { $0.displayName == external })
        // Until the video is measured the picture is the whole cycle; paused on it.
        let now = Date().timeIntervalSince1970
        let playlist = Playlist(
            items: [.init(source: "/srv/menu.png", seconds: 10), .init(source: "/srv/promo.mp4", seconds: nil)],
            epoch: now - 15)
        _ = product.execute(.setPlaylist(screen: external, playlist: playlist))
        _ = product.execute(.stepPlaylist(screen: external, step: .pause, at: now))
        #expect(product.model.playlistItem(of: output.registryName)?.index == 0)
        // Measured at 20 s, the clock at the moment of the pause would be in the video's turn (15 s into a 30 s cycle):
        // the pause still holds the picture.
        _ = product.measured(length: 20, ofVideo: "/srv/promo.mp4")
        #expect(product.model.playlistItem(of: output.registryName)?.index == 0)
        #expect(product.model.playlist(of: output)?.pausedAt == now)
    }

    @Test func aClockSwitchToACrossfadingItemAsksForAFade() throws {
        var product = ProductController(model: ScreenModel(), store: StateStore(path: "/nonexistent/state.json"))
        _ = product.outputsChanged([Self.output(1, "HEADLESS-1"), Self.output(2, "HEADLESS-2")])
        let external = product.model.assignment.controller == 1 ? "HEADLESS-2" : "HEADLESS-1"
        let now = Date().timeIntervalSince1970
        let playlist = Playlist(
            items: [
                .init(source: "text:First", seconds: 10),
                .init(source: "text:Second", seconds: 10, transition: .crossfade),
            ], epoch: now - 1)
        _ = product.execute(.setPlaylist(screen: external, playlist: playlist))
        let toSecond = product.advancePlaylists(now: Date(timeIntervalSince1970: now + 9.5))
        #expect(toSecond.changes.crossfades == [external: 1])
        // Back to the first item, which cuts.
        let toFirst = product.advancePlaylists(now: Date(timeIntervalSince1970: now + 19.5))
        #expect(toFirst.changes.screens.contains(external))
        #expect(toFirst.changes.crossfades.isEmpty)
    }
}
