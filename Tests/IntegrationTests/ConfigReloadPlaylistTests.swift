import CompositorHarness
import Foundation
import Outputs
import Testing

/// Issue 26: a SIGHUP reload changes the screens whose config changed and leaves the others playing undisturbed. One
/// screen plays a config playlist of a video (its own length), another a playlist of a red picture; the reload turns
/// the picture blue. The blue shows, and the video's pipeline is neither stopped nor started again, no
/// `playlist.item` is told for its screen, and its pixels stay the video's.
@Suite(.serialized) struct ConfigReloadPlaylistTests {
    static func config(video: String, picture: String) -> String {
        """
        [[playlist]]
        name = "wall"
        items = [{ source = "\(video)" }]

        [[playlist]]
        name = "side"
        items = [{ source = "\(picture)", seconds = 60 }]
        fit = "stretch"

        [[rule]]
        match = { name = "HEADLESS-1" }
        role = "controller"

        [[rule]]
        match = { name = "HEADLESS-2" }
        role = "external"
        content = "playlist"
        playlist = "wall"

        [[rule]]
        match = { name = "HEADLESS-3" }
        role = "external"
        content = "playlist"
        playlist = "side"

        """
    }

    @Test func aReloadLeavesUnchangedScreensPlaying() throws {
        let directory = try MediaFixtures.directory()
        let video = directory + "/lime-30s.mp4"
        try MediaFixtures.ffmpeg([
            "-f", "lavfi", "-i", "color=c=lime:s=320x240:r=25", "-t", "30", "-c:v", "libx264", "-pix_fmt", "yuv420p",
            video,
        ])
        let (red, blue) = (directory + "/red.png", directory + "/blue.png")
        try MediaFixtures.convert(["-size", "64x48", "xc:red", red])
        try MediaFixtures.convert(["-size", "64x48", "xc:blue", blue])
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(Self.config(video: video, picture: red), home: home)
        let sway = try HeadlessSway(outputs: 3, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForScreens(3)
        func shows(_ output: String, _ colour: RGBColor) throws -> Bool {
            try sway.screenshot(output).fraction(of: colour, tolerance: 40) >= 0.95
        }
        let (lime, redColour, blueColour) = (
            RGBColor(hex: 0x00_FF_00), RGBColor(hex: 0xFF_00_00), RGBColor(hex: 0x0000_FF)
        )
        try waitUntil(timeout: 10, "the video on HEADLESS-2") { try shows("HEADLESS-2", lime) }
        try waitUntil(timeout: 5, "the red picture on HEADLESS-3") { try shows("HEADLESS-3", redColour) }
        let started = app.log.components(separatedBy: "playing with").count - 1
        #expect(started == 1, "one pipeline for the video")

        let events = try ChildProcess(
            MultiscreenProcess.binary, ["events", "--timeout", "4"],
            environment: ["MULTISCREEN_SOCKET": app.home + "/control.sock"])
        try waitUntil(timeout: 10, "the subscription") {
            try app.request(#"{"method": "status"}"#).contains(#""subscribers":1"#)
        }
        try MultiscreenProcess.writeConfig(Self.config(video: video, picture: blue), home: home)
        app.process.signal(SIGHUP)
        try app.waitForLog("reloading the config")
        try waitUntil(timeout: 3, "the blue picture on HEADLESS-3 after the reload") {
            try shows("HEADLESS-3", blueColour)
        }
        #expect(try shows("HEADLESS-2", lime), "the video plays on")
        #expect(try events.waitForExit(timeout: 10) == 0, "\(events.output)")
        let told = events.standardOutput.split(separator: "\n").filter { $0.contains(#""method":"playlist.item""#) }
        #expect(told.contains { $0.contains(#""screen":"HEADLESS-3""#) }, "\(told)")
        #expect(!told.contains { $0.contains(#""screen":"HEADLESS-2""#) }, "\(told)")
        #expect(app.log.components(separatedBy: "playing with").count - 1 == started, "no pipeline started again")
        #expect(!app.log.contains("video pipeline stopped"), "no pipeline stopped")
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }
}
