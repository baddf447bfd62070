import CompositorHarness
import Foundation
import Outputs
import Testing

/// `multiscreen screen identify` on a real kiosk: every screen shows its own connector name over what it shows, an
/// image screen included (its picture is hidden meanwhile, not stopped), and after the seconds asked every screen
/// shows exactly what it showed before.
@Suite(.serialized) struct ScreenIdentifyTests {
    @Test func everyScreenNamesItselfThenShowsWhatItShowedBefore() throws {
        let directory = try MediaFixtures.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let picture = directory + "/red.png"
        try MediaFixtures.convert(["-size", "320x180", "xc:#d01010", picture])
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            """
            [[rule]]
            match = { name = "HEADLESS-3" }
            role = "external"
            content = "image"
            path = "\(picture)"
            """, home: home)
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForScreens(3)
        let red = RGBColor(red: 0xd0, green: 0x10, blue: 0x10)
        let picturesBefore = try sway.waitForScreenshot("HEADLESS-3", "the red picture") {
            $0.fraction(of: red, tolerance: 8) > 0.5
        }
        let before = try sway.waitForScreenshot("HEADLESS-2") { showsScreen($0, index: 1) }

        let asked = Date()
        let identify = try app.command(["screen", "identify", "--seconds", "4"])
        #expect(identify.status == 0, "\(identify.output)")
        for name in ["HEADLESS-1", "HEADLESS-2", "HEADLESS-3"] {
            try ScreenText.waitFor(name, on: name, in: sway, timeout: 3.5)
        }
        // The picture is under the names, not on top of them.
        #expect(try sway.screenshot("HEADLESS-3").fraction(of: red, tolerance: 8) < 0.2)
        #expect(Date().timeIntervalSince(asked) < 4, "the names were read only after they should have gone")

        // Then each screen shows what it showed, pixel for pixel.
        try sway.waitForScreenshot("HEADLESS-2", timeout: 8, "HEADLESS-2 as before") {
            $0.fraction(differingFrom: before) == 0
        }
        try sway.waitForScreenshot("HEADLESS-3", timeout: 8, "the picture back") {
            $0.fraction(differingFrom: picturesBefore) == 0
        }
        #expect(Date().timeIntervalSince(asked) >= 3.9, "the names went before their time")
        let status = try app.request(#"{"method": "status"}"#)
        #expect(status.contains("\"messages\":[]"), "identifying logged a message: \(status)")
        #expect(app.process.isRunning)
    }
}
