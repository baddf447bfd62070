import CompositorHarness
import Foundation
import Testing

/// Issue 8 on a real compositor: `multiscreen run` with the phone remote on headless sway. Where the QR code is, read
/// off screenshots (zbarimg decodes it from one quarter of a screen and not from the others), by default and as
/// `[remote]` places it; and an idle kiosk with the remote on sleeps like one without it.
@Suite(.serialized) struct PhoneRemoteScreensTests {
    private static let corners = ["top-left", "top-right", "bottom-left", "bottom-right"]

    /// The text of the QR code zbarimg finds in `shot`, or nil.
    private func decode(_ shot: Screenshot) throws -> String? {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).png").path
        try shot.writePNG(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let zbar = try ChildProcess("zbarimg", ["-q", "--raw", path])
        let status = try zbar.waitForExit(timeout: 30)
        // 4: no symbol found.
        guard status == 0 else {
            #expect(status == 4, "zbarimg failed: \(zbar.output)")
            return nil
        }
        return zbar.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The corners of `shot` whose quarter holds a QR code, with what it says.
    private func codesByCorner(_ shot: Screenshot) throws -> [String: String] {
        let (halfWidth, halfHeight) = (shot.width / 2, shot.height / 2)
        var found: [String: String] = [:]
        for corner in Self.corners {
            let x = corner.hasSuffix("right") ? shot.width - halfWidth : 0
            let y = corner.hasPrefix("bottom") ? shot.height - halfHeight : 0
            if let text = try decode(shot.region(x: x, y: y, width: halfWidth, height: halfHeight)) {
                found[corner] = text
            }
        }
        return found
    }

    private func listeningURL(_ app: MultiscreenProcess) throws -> String {
        let line = try app.waitForLog("phone remote listening at ", timeout: 20)
        let url = line.components(separatedBy: "listening at ").last ?? ""
        return String(url.prefix(while: { !$0.isWhitespace && $0 != "\"" }))
    }

    /// Without `qr_position` and `qr_screens`: the QR code bottom right on every external screen showing messages,
    /// carrying the remote's link. Then, idle with a code on screen (nobody in control, the code's expiry minutes
    /// away), the process makes no context switch: Hummingbird's `Application` woke it about ten times a second for
    /// its date cache.
    @Test func defaultPlacementAndAnIdleRemoteSleeps() throws {
        let sway = try HeadlessSway(outputs: 3, width: 480, height: 270)
        defer { sway.stop() }
        let app = try MultiscreenProcess(
            environment: sway.environment, arguments: ["run", "--remote", "127.0.0.1:0"])
        defer { app.process.kill() }
        let url = try listeningURL(app)
        try app.waitForLog("first frame committed on HEADLESS-3", timeout: 30)
        for output in ["HEADLESS-2", "HEADLESS-3"] {
            var codes: [String: String] = [:]
            try sway.waitForScreenshot(output, timeout: 20, "a QR code") { shot in
                codes = (try? codesByCorner(shot)) ?? [:]
                return !codes.isEmpty
            }
            #expect(Array(codes.keys) == ["bottom-right"], "\(output): \(codes)")
            #expect(codes["bottom-right"]?.hasPrefix(url + "?code=") == true, "\(output): \(codes), link \(url)")
        }
        #expect(try codesByCorner(sway.screenshot("HEADLESS-1")).isEmpty, "the controller shows no QR code")

        // Quiet for 1.5 s at least (a 1 s timer never is), then a 3 s window: at most one stray switch.
        try app.process.waitUntilQuiet(for: 1.5, timeout: 20)
        let switches = try app.process.contextSwitches(during: 3)
        #expect(switches <= 1, "idle with the remote on: \(switches) context switches in 3 s")
    }

    /// `qr_position = "top-left"` and `qr_screens = ["HEADLESS-2"]`: the QR code in the top left quarter of
    /// HEADLESS-2 only; HEADLESS-3, also showing messages, shows none.
    @Test func placementFromTheConfig() throws {
        let sway = try HeadlessSway(outputs: 3, width: 480, height: 270)
        defer { sway.stop() }
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            """
            [remote]
            listen = "127.0.0.1:0"
            qr_position = "top-left"
            qr_screens = ["HEADLESS-2"]
            """, home: home)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        defer { app.process.kill() }
        let url = try listeningURL(app)
        try app.waitForLog("first frame committed on HEADLESS-3", timeout: 30)
        var codes: [String: String] = [:]
        try sway.waitForScreenshot("HEADLESS-2", timeout: 20, "a QR code") { shot in
            codes = (try? codesByCorner(shot)) ?? [:]
            return !codes.isEmpty
        }
        #expect(Array(codes.keys) == ["top-left"], "HEADLESS-2: \(codes)")
        #expect(codes["top-left"]?.hasPrefix(url + "?code=") == true, "\(codes), link \(url)")
        // The display thread has the offer (HEADLESS-2 shows it): HEADLESS-3, showing messages too, stays without
        // it (a few looks over a second, as an offer reaches every screen in one render pass).
        for _ in 0..<3 {
            #expect(try decode(sway.screenshot("HEADLESS-3")) == nil, "HEADLESS-3 is not in qr_screens")
            Thread.sleep(forTimeInterval: 0.3)  // spacing between looks, not a wait for a condition
        }
    }
}
