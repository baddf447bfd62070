import CompositorHarness
import Foundation
import Testing

/// Issue 8 on a real compositor: `multiscreen run` with the phone remote on headless sway. Where the QR code is, read
/// off screenshots (zbarimg decodes it from one quarter of a screen and not from the others), by default and as
/// `[remote]` places it; and an idle kiosk with the remote on sleeps like one without it.
@Suite(.serialized) struct PhoneRemoteScreensTests {
    private static let corners = ["top-left", "top-right", "bottom-left", "bottom-right"]

    /// The corners of `shot` whose quarter holds a QR code, with what it says.
    private func codesByCorner(_ shot: Screenshot) throws -> [String: String] {
        var found: [String: String] = [:]
        for corner in Self.corners {
            if let text = try shot.qrCodeText(corner: corner) { found[corner] = text }
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
        try app.waitForFirstFrame(on: "HEADLESS-3", timeout: 30)
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

    /// After phones, the idle kiosk sleeps again: one phone releases control and closes its WebSocket, one goes
    /// quiet until the idle limit ends its control (the kiosk closes the socket and the phone answers), one vanishes
    /// (its TCP connection drops without a close frame). After each, with the fresh code on screen, the process makes
    /// no context switch, as before any phone: hummingbird-websocket ran the upgrade check in a task on Swift's global
    /// executor and swift-websocket timed the close handshake with `Task.sleep`, and the first of either started
    /// libdispatch's worker pool, whose monitor then woke the process every second for the rest of its life.
    @Test func anIdleRemoteSleepsAfterPhones() throws {
        let sway = try HeadlessSway(outputs: 2, width: 480, height: 270)
        defer { sway.stop() }
        let app = try MultiscreenProcess(
            environment: sway.environment, arguments: ["run", "--remote", "127.0.0.1:0", "--remote-idle", "2"])
        defer { app.process.kill() }
        let url = try listeningURL(app)
        guard let port = Int(url.split(separator: ":").last?.prefix(while: \.isNumber) ?? "") else {
            Issue.record("no port in \(url)")
            return
        }
        try app.waitForFirstFrame(on: "HEADLESS-2", timeout: 30)
        let origin = "Host: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
        var link = try sway.waitForNewQRCode(on: "HEADLESS-2")
        for ending in ["left", "timed out", "vanished"] {
            let token = String(link.split(separator: "?code=").last ?? "")
            let cookie = try #require(try RawWebSocketClient(port: port).claim(code: token, port: port), "\(ending)")
            let phone = try RawWebSocketClient(port: port)
            #expect(try phone.upgrade(port: port, cookie: cookie) == 101, "\(ending)")
            try phone.sendText(#"{"method":"send","params":{"text":"phone"}}"#)
            #expect(try phone.readText()?.contains(#""result""#) == true, "\(ending)")
            switch ending {
            case "left":
                let (released, _) = try RawWebSocketClient(port: port).request(
                    "POST /release HTTP/1.1\r\n\(origin)Cookie: \(cookie)\r\nContent-Length: 0\r\n"
                        + "Connection: close\r\n\r\n")
                #expect(released == 200)
                try phone.write([0x88, 0x80, 0, 0, 0, 0])  // a close frame (masked, empty), as a page leaving
                while try phone.readText() != nil {}  // until the kiosk's close frame
            case "timed out":
                while try phone.readText() != nil {}  // receipts, the reason, then the kiosk's close frame
                try phone.write([0x88, 0x80, 0, 0, 0, 0])  // answered, as a browser does
            default:
                break  // no close frame: the socket just goes
            }
            phone.close()
            link = try sway.waitForNewQRCode(on: "HEADLESS-2", other: link)
            // Quiet for 1.5 s at least (a 1 s timer never is), then a 3 s window: at most one stray switch.
            try app.process.waitUntilQuiet(for: 1.5, timeout: 20)
            let switches = try app.process.contextSwitches(during: 3)
            #expect(switches <= 1, "idle after a phone that \(ending): \(switches) context switches in 3 s")
        }

        // A normal stop, with a phone's WebSocket and a kept-alive HTTP connection open, logs no error (HummingbirdCore's
        // server logged the cancellation of its accept loop as one).
        let token = String(link.split(separator: "?code=").last ?? "")
        let cookie = try #require(try RawWebSocketClient(port: port).claim(code: token, port: port))
        let phone = try RawWebSocketClient(port: port)
        #expect(try phone.upgrade(port: port, cookie: cookie) == 101)
        let browser = try RawWebSocketClient(port: port)
        #expect(try browser.request("GET /healthz HTTP/1.1\r\n\(origin)Connection: keep-alive\r\n\r\n").status == 200)
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 20) == 0)
        #expect(app.log.contains("phone remote stopped"))
        let errors = app.log.split(separator: "\n").filter { $0.contains(" error ") || $0.contains(" critical ") }
        #expect(errors.isEmpty, "error-level lines at a normal stop: \(errors)")
    }

    /// `qr_position = "top-left"` and `qr_screens = ["HEADLESS-2"]`: the QR code in the top left quarter of
    /// HEADLESS-2 only; HEADLESS-3, also showing messages, shows none; when a phone takes control, only HEADLESS-2
    /// draws a frame.
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
        try app.waitForFirstFrame(on: "HEADLESS-3", timeout: 30)
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
            #expect(try sway.screenshot("HEADLESS-3").qrCodeText() == nil, "HEADLESS-3 is not in qr_screens")
            Thread.sleep(forTimeInterval: 0.3)  // spacing between looks, not a wait for a condition
        }

        // A phone claims the code: the QR code goes from HEADLESS-2, the only screen that shows it, and only
        // HEADLESS-2 draws a frame for that. The controller and HEADLESS-3 look the same with or without an offer:
        // they used to redraw for every offer change (a software frame each, in the way of the next message's).
        let before = try committedFrames(app)
        let port = try #require(Int(url.split(separator: ":").last?.prefix(while: \.isNumber) ?? ""), "\(url)")
        let token = String(codes["top-left"]?.split(separator: "?code=").last ?? "")
        #expect(try RawWebSocketClient(port: port).claim(code: token, port: port) != nil)
        try waitUntil(timeout: 20, "HEADLESS-2 to draw the offer's going") {
            try committedFrames(app)["HEADLESS-2"] ?? 0 > before["HEADLESS-2"] ?? 0
        }
        #expect(try sway.screenshot("HEADLESS-2").qrCodeText() == nil, "the QR code hides while a phone is in control")
        let after = try committedFrames(app)
        // In the same render pass as HEADLESS-2's frame, had they been marked: the controller is drawn before it.
        #expect(after["HEADLESS-1"] == before["HEADLESS-1"], "the controller redrew: \(before) → \(after)")
        #expect(after["HEADLESS-3"] == before["HEADLESS-3"], "HEADLESS-3 redrew: \(before) → \(after)")
    }

    /// The QR code's panel never covers the messages: a message wide enough to fill the screen wraps beside the
    /// panel's column (nothing drawn above the panel, in its column), and the QR code still decodes.
    @Test func messagesKeepOutOfTheQRCodesColumn() throws {
        let sway = try HeadlessSway(outputs: 2, width: 480, height: 270)
        defer { sway.stop() }
        let app = try MultiscreenProcess(environment: sway.environment, arguments: ["run", "--remote", "127.0.0.1:0"])
        defer { app.process.kill() }
        _ = try sway.waitForNewQRCode(on: "HEADLESS-2")
        let before = try sway.screenshot("HEADLESS-2")
        let background = before.pixel(x: 2, y: 2)
        #expect(try app.command(["send", String(repeating: "WWWW ", count: 40)]).status == 0)
        let shot = try sway.waitForScreenshot("HEADLESS-2", timeout: 20, "the message drawn") { shot in
            shot.fraction(differingFrom: before) > 0.01
        }
        // At 480×270 the panel is about 121 px wide, 11 px from the right edge, and starts about 118 px down.
        let column = shot.region(x: 352, y: 0, width: 480 - 352, height: 110)
        #expect(column.fraction(of: background, tolerance: 8) == 1, "text above the QR code, in its column")
        #expect(try shot.qrCodeText(corner: "bottom-right") != nil, "the QR code covered")
        // The message did fill the rest of the width.
        let left = shot.region(x: 16, y: 0, width: 320, height: 110)
        #expect(left.fraction(of: background, tolerance: 8) < 0.97, "no message drawn")
    }

    /// Frames committed so far by each screen, from `status`.
    private func committedFrames(_ app: MultiscreenProcess) throws -> [String: Int] {
        let screens = try app.statusResult()["screens"] as? [[String: Any]] ?? []
        var counts: [String: Int] = [:]
        for screen in screens {
            guard let name = screen["name"] as? String, let frames = screen["frames"] as? [String: Any] else {
                continue
            }
            counts[name] = frames["committed"] as? Int
        }
        return counts
    }
}
