import CompositorHarness
import Foundation
import Testing

/// Issue 26, `capture`: a PNG of every screen from Multiscreen's own drawing equals what the compositor shows
/// (`grim -o`), for the controller, a screen of messages, a picture the compositor scales, and a mirror.
@Suite(.serialized) struct ScreenCaptureTests {
    /// The fraction of pixels more than `tolerance` apart in some channel: scaling and text edges may differ a little
    /// between Multiscreen's drawing and the compositor's.
    static func differing(_ a: Screenshot, _ b: Screenshot, tolerance: Int = 24) -> Double {
        guard a.width == b.width, a.height == b.height, a.width * a.height > 0 else { return 1 }
        var count = 0
        for index in stride(from: 0, to: a.pixels.count, by: 3)
        where (0..<3).contains(where: { abs(Int(a.pixels[index + $0]) - Int(b.pixels[index + $0])) > tolerance }) {
            count += 1
        }
        return Double(count) / Double(a.width * a.height)
    }

    @Test func everyScreensCaptureIsWhatTheCompositorShows() throws {
        let directory = try MediaFixtures.directory()
        let picture = directory + "/gradient.png"
        try MediaFixtures.convert(["-size", "160x90", "gradient:red-blue", picture])
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            """
            [[rule]]
            match = { name = "HEADLESS-4" }
            role = "external"
            content = "mirror"
            """, home: home)
        let sway = try HeadlessSway(outputs: 4, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForScreens(4)
        #expect(try app.command(["send", "--screen", "HEADLESS-2", "Platform 4: delayed"]).status == 0)
        let shown = try app.command(["media", "show", "--screen", "HEADLESS-3", picture])
        #expect(shown.status == 0, "\(shown.output)")
        try waitUntil(timeout: 10, "the message and the picture on screen") {
            let messages = try sway.screenshot("HEADLESS-2")
            let picture = try sway.screenshot("HEADLESS-3")
            return showsScreen(messages, index: 1) && picture.pixel(x: 160, y: 30).red > 150
        }
        for name in ["HEADLESS-1", "HEADLESS-2", "HEADLESS-3", "HEADLESS-4"] {
            let file = directory + "/\(name).png"
            let captured = try app.command(["capture", "--screen", name, "-o", file])
            #expect(captured.status == 0, "\(name): \(captured.output)")
            let capture = try Screenshot(contentsOfFile: file)
            let screen = try sway.screenshot(name)
            #expect(capture.width == screen.width && capture.height == screen.height, "\(name)")
            let apart = Self.differing(capture, screen)
            #expect(apart < 0.01, "\(name): \(apart * 100)% of the pixels differ from grim's")
        }
        // The picture's screen is the picture, not only the background around it.
        let third = try Screenshot(contentsOfFile: directory + "/HEADLESS-3.png")
        #expect(
            third.pixel(x: 160, y: 30).red > 150 && third.pixel(x: 160, y: 200).blue > 150, "red to blue, top to bottom"
        )
        let refused = try app.command(["capture", "--screen", "DP-9", "-o", directory + "/none.png"])
        #expect(refused.status == 2 && refused.output.contains("unknown screen"), "\(refused.output)")
        let unwritable = try app.command(["capture", "--screen", "HEADLESS-1", "-o", "/proc/none/x.png"])
        #expect(unwritable.status == 2 && unwritable.output.contains("cannot write"), "\(unwritable.output)")
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }
}
