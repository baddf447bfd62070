import CompositorHarness
import Foundation
import Glibc
import Remote
import Testing

/// Multiscreen on weston 10: `wl_output` version 3 only (names come from xdg-output), real `presented` feedback,
/// the desktop shell and the kiosk shell.
@Suite(.serialized) struct WestonTests {
    @Test func aScreenOnWestonsOutput() throws {
        let weston = try Weston(width: 640, height: 360)
        let app = try MultiscreenProcess(environment: weston.environment)
        // "headless" is weston's output name, which only xdg_output.name carries on weston 10. The log is waited on
        // here because it names the buffer committed (size and buffer scale): `status` reports the output's mode and
        // scale, not the buffer Multiscreen chose for it.
        try app.waitForLog("first frame committed on headless: buffer 640x360 scale 1")
        let shot = try waitForWestonScreenshot(weston) { showsScreen($0, index: 0) }
        #expect(shot.width == 640 && shot.height == 360)
        #expect(app.process.isRunning)
        #expect(app.log.contains("presentation=yes"))
        // weston sends real `presented` feedback (sway 1.7 headless does not): the statistics must count it.
        try waitUntil(timeout: 10, "presented frames in the status") {
            let status = try ControlClient(path: app.home + "/control.sock").exchange(line: #"{"method": "status"}"#)
            return status.range(of: #""presented":[1-9]"#, options: .regularExpression) != nil
        }
    }

    /// weston 10's kiosk-shell on the headless backend presents nothing at all, not even `weston-simple-shm`
    /// (verified by hand: black screenshots, no frame callbacks), so pixels cannot be checked there. What can be:
    /// kiosk-shell configures our window to the whole output and Multiscreen commits a buffer of that size.
    @Test func kioskShellConfiguresAFullOutputWindow() throws {
        let weston = try Weston(width: 640, height: 360, shell: "kiosk-shell.so")
        let app = try MultiscreenProcess(environment: weston.environment)
        try app.waitForLog("first frame committed on headless: buffer 640x360 scale 1")
        #expect(app.process.isRunning)
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 5) == 0)
    }

    @Test func outputsNamesWestonsOutputFromXDGOutput() throws {
        let weston = try Weston(width: 320, height: 240, allowScreenshots: false)
        let list = try MultiscreenProcess(environment: weston.environment, arguments: ["outputs", "--json"])
        #expect(try list.process.waitForExit(timeout: 10) == 0)
        let outputs =
            try JSONSerialization.jsonObject(with: Data(list.process.standardOutput.utf8)) as? [[String: Any]] ?? []
        #expect(outputs.count == 1)
        #expect(outputs.first?["name"] as? String == "headless")
        #expect(outputs.first?["logicalWidth"] as? Int == 320)
    }

    @Test func scaledWestonOutputGetsAScaledBuffer() throws {
        let weston = try Weston(width: 320, height: 180, scale: 2)
        let app = try MultiscreenProcess(environment: weston.environment)
        try app.waitForLog("first frame committed on headless: buffer 640x360 scale 2")
        let shot = try waitForWestonScreenshot(weston) { showsScreen($0, index: 0) }
        #expect(shot.width == 640 && shot.height == 360)
    }

    private func waitForWestonScreenshot(_ weston: Weston, _ condition: (Screenshot) -> Bool) throws -> Screenshot {
        var last: Screenshot?
        do {
            try waitUntil(timeout: 10, "weston to show Multiscreen") {
                last = try weston.screenshot()
                return condition(last!)
            }
        } catch {
            throw HarnessError(
                "\(error); last screenshot dominant colour \(last?.dominantColor().description ?? "none")")
        }
        return last!
    }
}
