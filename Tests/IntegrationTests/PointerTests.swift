import CVirtualPointer
import CWaylandClient
import CompositorHarness
import Outputs
import Screens
import Testing

@testable import Wayland

/// Pointer presses drive the controller UI of a real `multiscreen run`: the test's own virtual pointer clicks the
/// controller's Send button and a screen's row, at the places ``ControllerLayout`` puts them.
@Suite(.serialized) struct PointerTests {
    static let focusRing = RGBColor(hex: 0xFA_CC_15)

    @Test func clicksSendTheMessageAndCycleAScreensContent() throws {
        // While sway 1.7 draws a (software) cursor, grim keeps getting the frame of the other outputs from before the
        // pointer device appeared, though the app commits new ones: sway hides the idle cursor after 100 ms here.
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 360, extraConfig: "seat * hide_cursor 100")
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(3)
        let pointer = try PointerDevices(sway)
        let layout = ControllerLayout(width: 640, height: 360, rowCount: 3)
        let externals = ["HEADLESS-2", "HEADLESS-3"]
        let before = try externals.enumerated().map { index, name in
            try sway.waitForScreenshot(name) { showsScreen($0, index: index + 1) }
        }

        // Type into the field (a sleeping wtype keeps the seat's keyboard, see ControllerTests), then click Send.
        let holder = try ChildProcess("wtype", ["-s", "600000"], environment: sway.environment)
        defer { holder.kill() }
        try app.waitForLog("seat: keyboard")
        try pointer.device(on: "HEADLESS-1")
        try app.waitForLog("seat: keyboard, pointer")
        let typist = try ChildProcess("wtype", ["clicked hello"], environment: sway.environment)
        #expect(try typist.waitForExit(timeout: 10) == 0)
        try pointer.click(layout.sendButton, on: "HEADLESS-1")
        try app.waitForLog("message #1 for every screen: clicked hello")
        for (index, name) in externals.enumerated() {
            try sway.waitForScreenshot(name, "\(name) showing the message") {
                showsScreen($0, index: index + 1) && $0.fraction(differingFrom: before[index]) > 0.01
            }
        }

        // HEADLESS-2's row: messages → mirror, and HEADLESS-2 shows the controller UI.
        try pointer.click(layout.rows[1], on: "HEADLESS-1")
        try app.waitForLog("HEADLESS-2: content messages → mirror")
        try sway.waitForScreenshot("HEADLESS-2", "HEADLESS-2 mirroring the controller") { mirror in
            guard let controller = try? sway.screenshot("HEADLESS-1") else { return false }
            return mirror.fraction(of: Self.focusRing) > 0.001 && mirror.fraction(differingFrom: controller) < 0.05
        }
        // Over an external screen the cursor is hidden (the Seat sends wl_pointer.set_cursor(nil), see SeatTests).
        try pointer.move(to: "HEADLESS-3", x: 100, y: 100)
        try app.waitForLog("cursor hidden over HEADLESS-3")
        #expect(!app.log.contains("cursor hidden over HEADLESS-1"))
        #expect(app.process.isRunning)
        #expect(!app.log.contains("protocol error"))
    }
}
