import CompositorHarness
import Foundation
import Glibc
import Messaging
import Outputs
import Remote
import Screens
import Testing

/// Issue 4 end to end: the controller UI, external content modes, cards, roles, restored state and local control,
/// against a real headless sway, checked on screenshots.
@Suite(.serialized) struct ControllerTests {
    static let focusRing = RGBColor(hex: 0xFA_CC_15)
    static let cardPanel = RGBColor(hex: 0xF8_FA_FC)
    @Test func typingAndEnterPutsTheTextOnEveryExternalScreen() throws {
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(3)
        let before = try ["HEADLESS-2", "HEADLESS-3"].map { name in
            try sway.waitForScreenshot(name) { showsScreen($0, index: name == "HEADLESS-2" ? 1 : 2) }
        }
        let holder = try app.holdKeyboard(sway)
        defer { holder.kill() }
        try typeKeys(sway, ["Hallo 세계"])
        try typeKeys(sway, ["-k", "Return"])
        try app.waitForLog("message #1 for every screen: Hallo 세계")
        for (index, name) in ["HEADLESS-2", "HEADLESS-3"].enumerated() {
            try sway.waitForScreenshot(name, "\(name) showing the message") {
                showsScreen($0, index: index + 1) && $0.fraction(differingFrom: before[index]) > 0.01
            }
        }
        // The controller: its UI with the focus ring, and the message in its log.
        try sway.waitForScreenshot("HEADLESS-1", "the controller UI") { $0.fraction(of: Self.focusRing) > 0.001 }
        let status = try app.request(#"{"method": "status"}"#)
        #expect(status.contains("\"text\":\"Hallo 세계\""))
        #expect(status.contains("\"controller\":\"HEADLESS-1\""))
    }

    @Test func aMirrorShowsTheControllerUILive() throws {
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            """
            [[rule]]
            match = { name = "HEADLESS-2" }
            role = "external"
            content = "mirror"
            """, home: home)
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForScreens(2)
        // Same size as the controller: the mirror is the controller's picture, pixel for pixel (or nearly).
        try sway.waitForScreenshot("HEADLESS-2", "HEADLESS-2 mirroring the controller") { mirror in
            guard let controller = try? sway.screenshot("HEADLESS-1") else { return false }
            return mirror.fraction(of: Self.focusRing) > 0.001 && mirror.fraction(differingFrom: controller) < 0.05
        }
        // Live: typing into the controller's text field shows up in the mirror too.
        let holder = try app.holdKeyboard(sway)
        defer { holder.kill() }
        let before = try sway.screenshot("HEADLESS-2")
        try typeKeys(sway, ["mirrored text"])
        try sway.waitForScreenshot("HEADLESS-2", "the typed text in the mirror") { mirror in
            guard let controller = try? sway.screenshot("HEADLESS-1") else { return false }
            return mirror.fraction(differingFrom: before) > 0.001 && mirror.fraction(differingFrom: controller) < 0.05
        }
        #expect(app.log.contains("HEADLESS-2: content (none) → mirror"))
    }

    @Test func aCardOpensReplacesAndCloses() throws {
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        let opened = try app.request(#"{"method": "card.open", "params": {"screen": "HEADLESS-2", "text": "Gate 12"}}"#)
        #expect(opened == #"{"method":"card.open","result":{"id":1,"screen":"HEADLESS-2"}}"#)
        let first = try sway.waitForScreenshot("HEADLESS-2", "the card") { $0.fraction(of: Self.cardPanel) > 0.5 }
        _ = try app.request(#"{"method": "card.open", "params": {"screen": "HEADLESS-2", "text": "Gate 14 now"}}"#)
        try sway.waitForScreenshot("HEADLESS-2", "the replacing card") {
            $0.fraction(of: Self.cardPanel) > 0.5 && $0.fraction(differingFrom: first) > 0.001
        }
        let closed = try app.request(#"{"method": "card.close", "params": {"screen": "HEADLESS-2"}}"#)
        #expect(closed.contains(#""result":{"id":2"#))
        try sway.waitForScreenshot("HEADLESS-2", "messages again") { showsScreen($0, index: 1) }
        let again = try app.request(#"{"method": "card.close", "params": {"screen": "HEADLESS-2"}}"#)
        // A refusal of the current state has its own code (-32005), not "invalid params" (issue 16: one meaning per
        // code).
        #expect(again.contains("\"code\":-32005"), "closing a screen without a card is refused: \(again)")
    }

    @Test func aCardWhoseScreenGoesAwayReturnsToTheControllersList() throws {
        let outer = try HeadlessSway(outputs: 1, width: 1600, height: 900)
        let nested = try NestedSway(inside: outer, outputs: 2, width: 480, height: 270)
        let app = try MultiscreenProcess(environment: nested.environment)
        try app.waitForScreens(2)
        _ = try app.request(#"{"method": "card.open", "params": {"screen": "WL-2", "text": "Gate 7"}}"#)
        try nested.waitForScreenshot("WL-2", "the card") { $0.fraction(of: Self.cardPanel) > 0.5 }
        let before = try nested.screenshot("WL-1")
        try nested.removeOutput("WL-2")
        try app.waitForLog("card #1 returned to the controller's list")
        let status = try app.request(#"{"method": "status"}"#)
        #expect(status.contains(#"{"id":1,"screen":null,"text":"Gate 7"}"#), "\(status)")
        // The controller lists it under "Cards waiting for a screen", below the screen list (which gives up room at
        // the bottom of its column for it). Checked in that region: background with no row panel, the heading's
        // text and, below it, the card's line in the dimmer text colour. Before, with no card waiting, the region
        // has no ink and the check does not hold.
        let waiting = WaitingCards(width: 480, height: 270, rows: 1)
        #expect(!waiting.areShown(on: before), "\(waiting.describe(before))")
        try nested.waitForScreenshot("WL-1", "the waiting card on the controller") {
            waiting.areShown(on: $0)
        }
        #expect(app.process.isRunning)
    }

    @Test func theCommandLineDrivesARunningMultiscreen() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        let sent = try app.command(["send", "from the CLI", "--screen", "HEADLESS-2"])
        #expect(sent.status == 0, "\(sent.output)")
        try app.waitForLog("message #1 for HEADLESS-2: from the CLI")
        #expect(try app.command(["card", "open", "--screen", "HEADLESS-2", "CLI card"]).status == 0)
        try sway.waitForScreenshot("HEADLESS-2", "the CLI's card") { $0.fraction(of: Self.cardPanel) > 0.5 }
        #expect(try app.command(["card", "close", "--screen", "HEADLESS-2"]).status == 0)
        #expect(try app.command(["role", "set", "HEADLESS-2", "controller"]).status == 0)
        try app.waitForLog("controller moved from HEADLESS-1 to HEADLESS-2")
        let status = try app.command(["status", "--json"])
        #expect(status.status == 0 && status.output.contains(#""controller":"HEADLESS-2""#), "\(status.output)")
        // An error reply: exit status 2 and the code on standard error.
        let refused = try app.command(["card", "close", "--screen", "HEADLESS-9"])
        #expect(refused.status == 2 && refused.output.contains("error -32602"), "\(refused.output)")
    }

    /// Issue 13: what the keyboard can do, from outside — content modes, clearing, expiry, forgetting roles —
    /// checked on the external screen's pixels.
    @Test func contentMessagesAndRolesAreControlledFromOutside() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        let idle = try sway.waitForScreenshot("HEADLESS-2") { showsScreen($0, index: 1) }
        let black = RGBColor(hex: 0x00_00_00)

        #expect(try app.command(["content", "set", "HEADLESS-2", "blank"]).status == 0)
        try sway.waitForScreenshot("HEADLESS-2", "blank") { $0.fraction(of: black) > 0.999 }
        let bad = try app.command(["content", "set", "HEADLESS-2", "sparkles"])
        #expect(
            bad.status == 2 && bad.output.contains("-32602")
                && bad.output.contains("messages, mirror, card, blank, web"))
        #expect(try app.command(["content", "set", "HEADLESS-2", "messages"]).status == 0)
        try sway.waitForScreenshot("HEADLESS-2", "messages again") { $0.fraction(differingFrom: idle) < 0.001 }

        // A message with a ttl shows, then goes by itself.
        #expect(try app.command(["send", "--ttl", "1", "brief"]).status == 0)
        try sway.waitForScreenshot("HEADLESS-2", "the brief message") { $0.fraction(differingFrom: idle) > 0.005 }
        try sway.waitForScreenshot("HEADLESS-2", timeout: 5, "the brief message gone") {
            $0.fraction(differingFrom: idle) < 0.001
        }
        // A message cleared from the screen.
        #expect(try app.command(["send", "stays until cleared"]).status == 0)
        try sway.waitForScreenshot("HEADLESS-2", "the message") { $0.fraction(differingFrom: idle) > 0.005 }
        #expect(try app.command(["messages", "clear", "--screen", "HEADLESS-2"]).status == 0)
        try sway.waitForScreenshot("HEADLESS-2", "cleared") { $0.fraction(differingFrom: idle) < 0.001 }

        // Roles: a change that leaves no controller is refused without --force; reset forgets it all.
        #expect(try app.command(["role", "set", "HEADLESS-1", "external"]).status == 0)
        try app.waitForLog("controller moved from HEADLESS-1 to HEADLESS-2")
        let orphan = try app.command(["role", "set", "HEADLESS-2", "external"])
        #expect(orphan.status == 2 && orphan.output.contains("-32005"), "\(orphan.output)")
        #expect(try app.command(["role", "set", "HEADLESS-2", "external", "--force"]).status == 0)
        try app.waitForLog("controller moved from HEADLESS-2 to (none)")
        #expect(try app.command(["role", "reset"]).status == 0)
        try app.waitForLog("controller moved from (none) to HEADLESS-1")
    }

    /// SIGHUP reloads the config without a restart; a broken config on reload leaves the previous one in force.
    @Test func sighupReloadsTheConfig() throws {
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig("", home: home)
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForScreens(2)
        try MultiscreenProcess.writeConfig(
            """
            [[rule]]
            match = { name = "HEADLESS-2" }
            role = "controller"
            """, home: home)
        app.process.signal(SIGHUP)
        try app.waitForLog("controller moved from HEADLESS-1 to HEADLESS-2")
        #expect(app.process.isRunning)
        try MultiscreenProcess.writeConfig("[[rule]\nbroken", home: home)
        app.process.signal(SIGHUP)
        try app.waitForLog("the previous config stays in force")
        #expect(app.process.isRunning)
        let status = try app.request(#"{"method": "status"}"#)
        #expect(status.contains(#""controller":"HEADLESS-2""#), "the previous config still applies: \(status)")
    }

    @Test func theControllerMovesWhenItsOutputGoesAndMovesBack() throws {
        let home = MultiscreenProcess.makeHome()
        // The preferred controller is WL-3, which does not exist yet: WL-1 stands in until it appears.
        try MultiscreenProcess.writeConfig(
            """
            [controller]
            fallback = "first"
            return = true

            [[rule]]
            match = { name = "WL-3" }
            role = "controller"
            """, home: home)
        let outer = try HeadlessSway(outputs: 1, width: 1600, height: 900)
        let nested = try NestedSway(inside: outer, outputs: 2, width: 480, height: 270)
        let app = try MultiscreenProcess(environment: nested.environment, home: home)
        try app.waitForLog("controller moved from (none) to WL-1 (standing in")
        try nested.waitForScreenshot("WL-1", "the controller UI on WL-1") { $0.fraction(of: Self.focusRing) > 0.001 }

        let preferred = try nested.createOutput()
        #expect(preferred == "WL-3")
        try app.waitForLog("controller moved from WL-1 to WL-3")
        try nested.waitForScreenshot("WL-3", "the controller UI on WL-3") { $0.fraction(of: Self.focusRing) > 0.001 }
        try nested.waitForScreenshot("WL-1", "WL-1 external again") { $0.fraction(of: Self.focusRing) == 0 }

        try nested.removeOutput("WL-3")
        try app.waitForLog("controller moved from WL-3 to WL-1")
        try nested.waitForScreenshot("WL-1", "the controller UI back on WL-1") {
            $0.fraction(of: Self.focusRing) > 0.001
        }
        #expect(app.process.isRunning)
        #expect(!app.log.contains("protocol error"))
    }

    @Test func stateIsRestoredAfterARestart() throws {
        let home = MultiscreenProcess.makeHome()
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        do {
            let first = try MultiscreenProcess(environment: sway.environment, home: home)
            try first.waitForScreens(2)
            _ = try first.request(#"{"method": "send", "params": {"text": "remember me"}}"#)
            _ = try first.request(#"{"method": "card.open", "params": {"screen": "HEADLESS-2", "text": "Saved card"}}"#)
            first.process.signal(SIGTERM)
            #expect(try first.process.waitForExit(timeout: 5) == 0)
        }
        let state = try String(contentsOfFile: home + "/state/multiscreen/state.json", encoding: .utf8)
        #expect(state.contains("remember me") && state.contains("Saved card"))

        let second = try MultiscreenProcess(environment: sway.environment, home: home)
        try second.waitForLog("1 cards, 1 messages restored")
        try sway.waitForScreenshot("HEADLESS-2", "the restored card") { $0.fraction(of: Self.cardPanel) > 0.5 }
        let status = try second.request(#"{"method": "status"}"#)
        #expect(status.contains("remember me"))
        #expect(status.contains(#""screen":"HEADLESS-2","text":"Saved card""#))
    }

    @Test func aCorruptStateFileIsSetAsideNotFatal() throws {
        let home = MultiscreenProcess.makeHome()
        try FileManager.default.createDirectory(atPath: home + "/state/multiscreen", withIntermediateDirectories: true)
        try "{ not json".write(toFile: home + "/state/multiscreen/state.json", atomically: true, encoding: .utf8)
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForFirstFrame(on: "HEADLESS-1")
        let kept = try FileManager.default.contentsOfDirectory(atPath: home + "/state/multiscreen")
        #expect(kept.contains { $0.hasPrefix("state.json.corrupt-") }, "set aside, not lost: \(kept)")
        #expect(app.log.contains("state.json.corrupt-"))
        #expect(app.process.isRunning)
    }

    @Test func badRequestsGetPreciseErrorsAndTheScreensKeepRunning() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        let cases: [(String, Int)] = [
            ("{not json", -32700),
            (#"{"method": "launch.rockets"}"#, -32601),
            (#"{"method": "send", "params": {"txt": "typo"}}"#, -32602),
            (#"{"method": "send", "params": {"text": "x", "screen": "HDMI-A-9"}}"#, -32602),
            (#"{"method": "role.set", "params": {"screen": "HEADLESS-2", "role": "Boss!"}}"#, -32602),
            (#"{"method": "send", "params": {"text": "\#(String(repeating: "x", count: 70_000))"}}"#, -32001),
        ]
        for (line, code) in cases {
            let reply = try app.request(line)
            #expect(reply.contains("\"code\":\(code)"), "\(line.prefix(60)) → \(reply)")
        }
        #expect(app.process.isRunning)
        let ok = try app.request(#"{"method": "send", "params": {"text": "still here", "screen": "HEADLESS-2"}}"#)
        #expect(ok.contains("\"result\""))
        try sway.waitForScreenshot("HEADLESS-2") { showsScreen($0, index: 1) }
        #expect(app.log.contains("refused send"))
    }
}

/// Role changes, messages and cards are events: `multiscreen events` streams them from the control socket.
@Suite(.serialized) struct EventTests {
    @Test func roleChangesMessagesAndCardsAreStreamedToSubscribers() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        let client = ControlClient(path: app.home + "/control.sock")
        let events = try ChildProcess(
            MultiscreenProcess.binary, ["events", "--count", "6", "--timeout", "20"],
            environment: ["MULTISCREEN_SOCKET": app.home + "/control.sock"])
        try waitUntil(timeout: 10, "the subscription") {
            try client.exchange(line: #"{"method": "status"}"#).contains(#""subscribers":1"#)
        }
        _ = try client.exchange(
            line: #"{"method": "role.set", "params": {"screen": "HEADLESS-2", "role": "controller"}}"#)
        _ = try client.exchange(line: #"{"method": "send", "params": {"text": "to all"}}"#)
        // Five events for the role change (two roles, the controller's move, two content modes), one message.
        #expect(try events.waitForExit(timeout: 10) == 0, "six events arrive: \(events.output)")
        let lines = events.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains(#""method":"controller.moved""#) && $0.contains(#""to":"HEADLESS-2""#) })
        #expect(lines.contains { $0.contains(#""method":"role.changed""#) && $0.contains(#""screen":"HEADLESS-1""#) })
        #expect(lines.contains { $0.contains(#""method":"message.received""#) && $0.contains(#""text":"to all""#) })
        #expect(app.process.isRunning)
    }
}

/// Where the controller draws "Cards waiting for a screen" and one waiting card (``ControllerLayout/waitingCards``:
/// below the screen list, the heading on one line, each card on the next), and a check of those pixels.
private struct WaitingCards {
    let heading: (x: Int, y: Int, width: Int, height: Int)
    let card: (x: Int, y: Int, width: Int, height: Int)
    let background = expectedBackground(0)

    init(width: Int, height: Int, rows: Int) {
        let layout = ControllerLayout(width: Float(width), height: Float(height), rowCount: rows, waitingCardCount: 1)
        let small = Float(layout.smallSize)
        let x = Int(layout.waitingCards.x)
        let top = layout.waitingCards.y
        heading = (x, Int(top.rounded()), Int(layout.screensTitle.width), Int((small * 1.5).rounded()))
        card = (x, Int((top + small * 1.5).rounded()), Int(layout.screensTitle.width), Int((small * 1.4).rounded()))
    }

    private func region(_ shot: Screenshot, _ r: (x: Int, y: Int, width: Int, height: Int)) -> Screenshot {
        shot.region(x: r.x, y: r.y, width: r.width, height: r.height)
    }

    /// Ink: pixels much brighter than the background, as text drawn in either text colour makes them.
    private func ink(_ shot: Screenshot) -> (count: Int, columns: ClosedRange<Int>?) {
        var count = 0
        var columns: ClosedRange<Int>?
        for y in 0..<shot.height {
            for x in 0..<shot.width where shot.pixel(x: x, y: y).distance(to: background) >= 64 {
                count += 1
                columns = columns.map { min($0.lowerBound, x)...max($0.upperBound, x) } ?? x...x
            }
        }
        return (count, columns)
    }

    /// The background fraction of both lines, and the ink (count, columns) of the heading and of the card line.
    func measure(_ shot: Screenshot) -> (background: Double, heading: Int, headingWidth: Int, card: Int, cardWidth: Int)
    {
        let lines = region(shot, (heading.x, heading.y, heading.width, heading.height + card.height))
        let headingInk = ink(region(shot, heading))
        let cardInk = ink(region(shot, card))
        return (
            lines.fraction(of: background, tolerance: 2), headingInk.count, headingInk.columns?.count ?? 0,
            cardInk.count, cardInk.columns?.count ?? 0
        )
    }

    /// The row is gone (mostly background, no row panel), the heading's ink spans a long line ("Cards waiting for a
    /// screen", 105 px at this size) and the card's a short one ("#1 Gate 7", 39 px). With the heading and cards not
    /// drawn, the heading has no ink.
    func areShown(on shot: Screenshot) -> Bool {
        let m = measure(shot)
        return m.background > 0.7 && m.heading >= 150 && (80...140).contains(m.headingWidth) && m.card >= 40
            && (20...70).contains(m.cardWidth)
    }

    func describe(_ shot: Screenshot) -> String { "\(measure(shot)) in \(heading), \(card)" }
}
