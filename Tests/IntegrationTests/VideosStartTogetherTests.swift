import CompositorHarness
import Foundation
import Testing

/// Issue 25, videos started together: two different videos that start on one switch of the wall clock (a playlist
/// spread over two screens, each screen the other's item, swapping every 2 s) show their first frames on the same
/// refresh. Each screen's next video is read ahead of its turn and its pipeline plays its first frame when the clock
/// says, so a switch costs neither a preroll nor a different delay per file. The proof of play records when the
/// compositor first showed each turn's frames: the two screens' times for one switch must lie within one refresh.
@Suite(.serialized) struct VideosStartTogetherTests {
    @Test func twoDifferentVideosOnOneSwitchShowTheirFirstFramesOnTheSameRefresh() throws {
        let directory = try MediaFixtures.directory()
        let videos = try [("testsrc", "card.mp4"), ("smptebars", "bars.mp4")].map { source, name in
            try MediaVideoTests.makeVideo(in: directory, seconds: 3, name: name, source: source)
        }
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 480)
        let app = try MultiscreenProcess(environment: sway.environment, home: MultiscreenProcess.makeHome())
        try app.waitForScreens(3)
        let screens = ["HEADLESS-2", "HEADLESS-3"]
        let setAt = Date().timeIntervalSince1970
        let set = try app.command(
            ["playlist", "set", "--spread", "--fit", "stretch"] + screens.flatMap { ["--screen", $0] }
                + videos.map { $0 + "@2" })
        #expect(set.status == 0, "\(set.output)")

        // Turns by their start, per screen. The ones that began before the playlist was set, or so soon after it that
        // their videos could not be read ahead in full (while the first turn's were being read), are not counted.
        var turns: [Double: [String: [String: Any]]] = [:]
        try waitUntil(timeout: 20, "four switches recorded on both screens") {
            turns = [:]
            for record in try PlaylistHistoryTests.records(app) {
                guard let screen = record["screen"] as? String, screens.contains(screen),
                    let start = record["start"] as? Double
                else { continue }
                turns[start, default: [:]][screen] = record
            }
            return turns.filter { $0.key >= setAt + 2 && $0.value.count == 2 }.count >= 4
        }
        let refresh = 1 / 60.0
        let switches = turns.keys.sorted().filter { $0 >= setAt + 2 && turns[$0]?.count == 2 }
        #expect(switches.count >= 4, "\(turns)")
        for start in switches {
            let records = screens.map { turns[start]![$0]! }
            let shown = try records.map { try #require($0["shownAt"] as? Double, "shown: \($0)") }
            let sources = records.map { $0["source"] as? String ?? "" }
            print("switch at \(start): first frames shown \(shown.map { Int(($0 - start) * 1000) }) ms after it")
            #expect(Set(sources) == Set(videos), "each screen its own video: \(records)")
            #expect(abs(shown[0] - shown[1]) <= refresh, "within one refresh: \(records)")
            // On the switch, not a preroll later: the frame due then, committed and shown at the next refresh.
            #expect(shown.allSatisfy { $0 - start < 3 * refresh }, "\(records)")
        }
        #expect(!app.log.contains("protocol error"))
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }
}
