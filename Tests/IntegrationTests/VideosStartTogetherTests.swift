import CompositorHarness
import Foundation
import Testing

/// Issue 25, videos started together: two different videos that start on one switch of the wall clock (a playlist
/// spread over two screens, each screen the other's item, swapping every 2 s) show their first frames on the same
/// refresh. Each screen's next video is read ahead of its turn and its pipeline plays its first frame when the clock
/// says, so a switch costs neither a preroll nor a different delay per file. The proof of play records when the
/// compositor first showed each turn's frames: the two screens' times for one switch must lie within one refresh.
///
/// One `media show` naming several screens does the same: its requests carry one start (`at`), every file is read
/// and answered before it, the screens switch at it, and `status` says when each first showed its file (`shownAt`).
@Suite(.serialized) struct VideosStartTogetherTests {
    static let refresh = 1 / 60.0

    /// When each of `screens` first showed its file, once all have.
    static func shownAt(_ app: MultiscreenProcess, _ screens: [String]) throws -> [Double] {
        var shown: [Double] = []
        try waitUntil(timeout: 10, "every screen showed its file") {
            shown = try screens.compactMap { try MediaVideoTests.media(app, $0)["shownAt"] as? Double }
            return shown.count == screens.count
        }
        return shown
    }

    /// Two different 3 s videos (ffmpeg's test card and its colour bars), and Multiscreen on three outputs of headless
    /// sway. The compositor is returned so that it lives as long as the test.
    static func twoVideosOnThreeOutputs() throws -> (videos: [String], sway: HeadlessSway, app: MultiscreenProcess) {
        let directory = try MediaFixtures.directory()
        let videos = try [("testsrc", "card.mp4"), ("smptebars", "bars.mp4")].map { source, name in
            try MediaVideoTests.makeVideo(in: directory, seconds: 3, name: name, source: source)
        }
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 480)
        let app = try MultiscreenProcess(environment: sway.environment, home: MultiscreenProcess.makeHome())
        try app.waitForScreens(3)
        return (videos, sway, app)
    }

    /// Shows `video` on `screen` and stops it: GStreamer and the decoder are loaded once, so that the start measured
    /// next is not the first video's (which may take longer than the CLI's lead from a cold disk, and then plays in
    /// step but late).
    static func warmUp(_ app: MultiscreenProcess, _ video: String, on screen: String) throws {
        #expect(try app.command(["media", "show", "--screen", screen, video]).status == 0)
        #expect(try app.command(["media", "stop", "--screen", screen]).status == 0)
    }

    /// The start the CLI printed (`at: …`), the same for every screen.
    static func start(in output: String) throws -> Double {
        let starts = Set(
            output.split(separator: "\n").compactMap { line -> Double? in
                let fields = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                return fields.count == 2 && fields[0] == "at" ? Double(fields[1]) : nil
            })
        #expect(starts.count == 1, "one start for every screen: \(output)")
        return try #require(starts.first, "\(output)")
    }

    @Test func oneMediaShowStartsTwoDifferentVideosOnTheSameRefresh() throws {
        let (videos, sway, app) = try Self.twoVideosOnThreeOutputs()
        defer { withExtendedLifetime(sway) {} }
        let screens = ["HEADLESS-2", "HEADLESS-3"]
        try Self.warmUp(app, videos[0], on: screens[0])
        let sent = Date().timeIntervalSince1970
        let show = try app.command(
            ["media", "show", "--loop", "--screen", screens[0], videos[0], "--screen", screens[1], videos[1]])
        #expect(show.status == 0, "\(show.output)")
        let start = try Self.start(in: show.output)
        #expect(start > sent && start < sent + 2.5, "\(show.output)")
        // Answered once read; until the start, `status` says what each screen waits for.
        let waiting = try SharedMirrorTests.status(app)["screens"] as? [[String: Any]] ?? []
        if Date().timeIntervalSince1970 < start - 0.2 {
            for screen in screens {
                let entry = waiting.first { $0["name"] as? String == screen }
                let mediaStart = entry?["mediaStart"] as? [String: Any]
                #expect(abs((mediaStart?["at"] as? Double ?? 0) - start) < 1e-6, "\(String(describing: entry))")
                #expect(entry?["content"] as? String == "messages", "not switched before the start")
            }
        }

        let shown = try Self.shownAt(app, screens)
        print("first frames shown \(shown.map { Int(($0 - start) * 1000) }) ms after the start")
        #expect(abs(shown[0] - shown[1]) <= Self.refresh, "within one refresh: \(shown)")
        #expect(shown.allSatisfy { $0 >= start && $0 - start < 3 * Self.refresh }, "on the start: \(shown), \(start)")
        for (screen, video) in zip(screens, videos) {
            let media = try MediaVideoTests.media(app, screen)
            #expect(media["state"] as? String == "playing")
            #expect(abs((media["at"] as? Double ?? 0) - start) < 1e-6, "status says the start: \(media)")
            let line = app.log.split(separator: "\n").first { $0.contains("video 320x240 on \(screen) from ") }
            #expect(line?.hasSuffix("on the clock: \(video)") == true, "\(app.log)")
        }
        #expect(!app.log.contains("protocol error"))
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }

    /// One file on three screens in one request: one pipeline, and all three switch on the same refresh. A screen
    /// that cannot show it (the controller) is refused on its own; the others still switch.
    @Test func oneVideoOnThreeScreensInOneRequestIsOnePipelineStartedOnOneRefresh() throws {
        let directory = try MediaFixtures.directory()
        let video = try MediaVideoTests.makeVideo(in: directory, seconds: 3)
        let sway = try HeadlessSway(outputs: 4, width: 640, height: 480)
        let app = try MultiscreenProcess(environment: sway.environment, home: MultiscreenProcess.makeHome())
        try app.waitForScreens(4)
        let screens = ["HEADLESS-2", "HEADLESS-3", "HEADLESS-4"]
        try Self.warmUp(app, video, on: screens[0])
        let show = try app.command(
            ["media", "show", "--loop", video] + (["HEADLESS-1"] + screens).flatMap { ["--screen", $0] })
        #expect(show.status == 2, "the controller refused: \(show.output)")
        #expect(show.output.contains("error"), "\(show.output)")
        let start = try Self.start(in: show.output)
        let shown = try Self.shownAt(app, screens)
        print("first frames shown \(shown.map { Int(($0 - start) * 1000) }) ms after the start")
        #expect(shown.max()! - shown.min()! <= Self.refresh, "within one refresh: \(shown)")
        #expect(shown.allSatisfy { $0 >= start && $0 - start < 3 * Self.refresh }, "on the start: \(shown), \(start)")
        // Decoded once: one pipeline played it (after the warm-up's).
        #expect(app.log.components(separatedBy: "playing with").count - 1 == 2, "\(app.log)")
        #expect(try MediaVideoTests.media(app, "HEADLESS-1").isEmpty)
        #expect(!app.log.contains("protocol error"))
    }

    @Test func twoDifferentVideosOnOneSwitchShowTheirFirstFramesOnTheSameRefresh() throws {
        let (videos, sway, app) = try Self.twoVideosOnThreeOutputs()
        defer { withExtendedLifetime(sway) {} }
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
