import CompositorHarness
import Foundation
import Outputs
import Testing

/// Issue 26, item 5: a playlist item by URL is fetched from a real HTTP server (Python's `http.server`, started here)
/// into the cache and shown, and keeps showing once the server is gone, across a restart too.
@Suite(.serialized) struct PlaylistAssetScreensTests {
    /// Waits until `screen` shows mostly `colour`, or `timeout` passed. - Returns: whether it did.
    static func waitFor(_ colour: RGBColor, on screen: String, of sway: HeadlessSway, timeout: Double) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            if try sway.screenshot(screen).fraction(of: colour, tolerance: 8) >= 0.98 { return true }
            usleep(100_000)
        }
        return false
    }

    @Test func aPictureByURLShowsAndKeepsShowingWithTheServerGone() throws {
        let served = try MediaFixtures.directory()
        try MediaFixtures.convert(["-size", "64x48", "xc:red", served + "/red.png"])
        let server = try ChildProcess(
            "python3", ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", served])
        defer { server.kill() }
        // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
        let line = try server.waitForLine(containing: "Serving HTTP", timeout: 10)
        let port = try #require(
            line.split(separator: " ").firstIndex(of: "port").map { line.split(separator: " ")[$0 + 1] })
        let url = "http://127.0.0.1:\(port)/red.png"
        let red = RGBColor(hex: 0xFF_00_00)

        let home = MultiscreenProcess.makeHome()
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        do {
            let app = try MultiscreenProcess(environment: sway.environment, home: home)
            try app.waitForScreens(2)
            let set = try app.command(["playlist", "set", "--screen", "HEADLESS-2", "--fit", "stretch", url + "@60"])
            #expect(set.status == 0, "\(set.output)")
            #expect(try Self.waitFor(red, on: "HEADLESS-2", of: sway, timeout: 15), "\(app.log.suffix(3000))")
            let assets = try SharedMirrorTests.status(app)["assets"] as? [String: Any] ?? [:]
            #expect(assets["cached"] as? Int == 1, "\(assets)")
            #expect(assets["bytesUsed"] as? Int ?? 0 > 0, "\(assets)")
            // Idle with its fetcher: the fetcher's loop sleeps with nothing armed, and nothing else wakes.
            try app.process.waitUntilQuiet(for: 1, timeout: 10)
            #expect(try app.process.contextSwitches(during: 3) == 0)
            // The server goes: the picture stays.
            server.kill()
            _ = try? server.waitForExit(timeout: 5)
            #expect(try sway.screenshot("HEADLESS-2").fraction(of: red, tolerance: 8) >= 0.98)
            app.process.signal(SIGTERM)
            #expect(try app.process.waitForExit(timeout: 10) == 0)
        }
        // A restart with the server still gone: the cached copy shows, nothing is fetched.
        let again = try MultiscreenProcess(environment: sway.environment, home: home)
        try again.waitForScreens(2)
        #expect(try Self.waitFor(red, on: "HEADLESS-2", of: sway, timeout: 15), "\(again.log.suffix(3000))")
        #expect(!again.log.contains("asset failed"))
    }

    /// An item whose asset the server does not have yet gives way to the item before it: the screen never goes black,
    /// and once the file appears on the server (fetched on the retry) its turns show it.
    @Test func anAssetNotThereYetIsSkippedThenShown() throws {
        let served = try MediaFixtures.directory()
        let local = try MediaFixtures.directory() + "/red.png"
        try MediaFixtures.convert(["-size", "64x48", "xc:red", local])
        let server = try ChildProcess(
            "python3", ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", served])
        defer { server.kill() }
        let line = try server.waitForLine(containing: "Serving HTTP", timeout: 10)
        let words = line.split(separator: " ")
        let port = try #require(words.firstIndex(of: "port").map { words[$0 + 1] })
        let (red, blue) = (RGBColor(hex: 0xFF_00_00), RGBColor(hex: 0x00_00_FF))

        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        let set = try app.command([
            "playlist", "set", "--screen", "HEADLESS-2", "--fit", "stretch", local + "@1",
            "http://127.0.0.1:\(port)/blue.png@1",
        ])
        #expect(set.status == 0, "\(set.output)")
        #expect(try Self.waitFor(red, on: "HEADLESS-2", of: sway, timeout: 10))
        // Two whole cycles: the picture by URL's turns keep the red one.
        let end = Date().addingTimeInterval(2.5)
        var samples = 0
        while Date() < end {
            let shot = try sway.screenshot("HEADLESS-2")
            #expect(shot.fraction(of: red, tolerance: 8) >= 0.98, "dominant \(shot.dominantColor())")
            samples += 1
        }
        #expect(samples >= 5)
        let assets = try SharedMirrorTests.status(app)["assets"] as? [String: Any] ?? [:]
        #expect((assets["failed"] as? [String: String])?.values.first?.contains("404") == true, "\(assets)")
        // The file appears: the next try (within 5 s) fetches it, and its turns show it.
        try MediaFixtures.convert(["-size", "64x48", "xc:blue", served + "/blue.png"])
        #expect(try Self.waitFor(blue, on: "HEADLESS-2", of: sway, timeout: 15), "\(app.log.suffix(3000))")
        #expect(app.log.contains("skipped: http://127.0.0.1:\(port)/blue.png is not cached yet"))
        // The proof of play names the URL, and counts the frames of its cached copy.
        let url = "http://127.0.0.1:\(port)/blue.png"
        let deadline = Date().addingTimeInterval(5)
        var played: [[String: Any]] = []
        while played.isEmpty, deadline.timeIntervalSinceNow > 0 {
            usleep(200_000)
            played = try PlaylistHistoryTests.records(app).filter { $0["source"] as? String == url }
        }
        #expect(played.contains { ($0["frames"] as? Int ?? 0) >= 1 && $0["shownAt"] is Double }, "\(played)")
    }
}
