import CompositorHarness
import Fleet
import Foundation
import Glibc
import Messaging
import Outputs
import Remote
import Testing

/// Issue 12 end to end: a real mosquitto on loopback and `multiscreen run` kiosks, each on its own private headless
/// sway, addressed through the broker; checked on their screens, in their local `status` and in the retained fleet
/// status.
@Suite(.serialized) struct FleetKioskTests {
    static let site = "it"

    /// One kiosk: its compositor (controller on HEADLESS-1, an external screen on HEADLESS-2) and Multiscreen.
    struct Kiosk {
        let name: String
        let sway: HeadlessSway
        let app: MultiscreenProcess

        init(_ name: String, groups: [String], broker: MosquittoBroker, extra: String = "") throws {
            self.name = name
            let home = MultiscreenProcess.makeHome()
            let groupList = groups.map { "\"\($0)\"" }.joined(separator: ", ")
            try MultiscreenProcess.writeConfig(
                """
                [fleet]
                broker = "\(broker.url)"
                site = "\(FleetKioskTests.site)"
                kiosk = "\(name)"
                groups = [\(groupList)]
                \(extra)
                """, home: home)
            sway = try HeadlessSway(outputs: 2, width: 320, height: 180)
            app = try MultiscreenProcess(environment: sway.environment, home: home)
            try app.waitForScreens(2, timeout: 20)
        }

        /// The kiosk's own `status`, through its local control socket.
        func status() throws -> String {
            try ControlClient(path: app.home + "/control.sock").exchange(line: #"{"method": "status"}"#)
        }
    }

    /// An operator subscribed to the site's replies, presence and status.
    final class Operator {
        let client: FleetOperator
        private(set) var messages: [MosquittoMessage] = []

        init(_ broker: MosquittoBroker) throws {
            client = try FleetOperator(
                settings: FleetConfig(broker: try BrokerAddress(broker.url), site: FleetKioskTests.site))
            try client.connect()
            let site = FleetKioskTests.site
            try client.subscribe(["multiscreen/\(site)/+/reply", "multiscreen/\(site)/+/online"])
            try client.subscribe(["multiscreen/\(site)/+/status", "multiscreen/\(site)/+/events"])
        }

        func send(_ message: Message, to target: String, id: String) throws {
            try client.publish(
                topic: FleetTopics.command(site: FleetKioskTests.site, target: target),
                payload: FleetOperator.request(message, id: id))
        }

        func wait(timeout: Double = 15, _ what: String, _ condition: () -> Bool) throws {
            let deadline = FleetOperator.now() + timeout
            while true {
                messages += client.takeMessages()
                if condition() { return }
                if FleetOperator.now() > deadline { throw HarnessError("timed out waiting for \(what)") }
                try client.step(until: min(deadline, FleetOperator.now() + 0.05))
            }
        }

        /// The kiosks that replied to `id`.
        func repliers(to id: String) -> Set<String> {
            Set(
                messages.compactMap { message in
                    guard let kiosk = FleetTopics.kiosk(in: message.topic, site: FleetKioskTests.site, leaf: "reply"),
                        (try? JSONValue.parse(message.payload))?.objectValue["id"] == .string(id)
                    else { return nil }
                    return kiosk
                })
        }

        func last(_ kiosk: String, _ leaf: String) -> String? {
            let topic = "multiscreen/\(FleetKioskTests.site)/\(kiosk)/\(leaf)"
            return messages.last { $0.topic == topic }.map { String(decoding: $0.payload, as: UTF8.self) }
        }
    }

    @Test func groupAllAndKioskCommandsReachExactlyTheirKiosks() throws {
        let broker = try MosquittoBroker()
        let kiosks = [
            try Kiosk("gate-a", groups: ["t2"], broker: broker), try Kiosk("gate-b", groups: ["t2"], broker: broker),
            try Kiosk("lounge", groups: ["t1"], broker: broker),
        ]
        let desk = try Operator(broker)
        try desk.wait("every kiosk online") { kiosks.allSatisfy { desk.last($0.name, "online") == "true" } }
        let before = try kiosks.map { try $0.sway.screenshot("HEADLESS-2") }

        // A group: exactly its two kiosks, through the operator CLI, which stops at the expected replies.
        let cliStarted = FleetOperator.now()
        let cli = try ChildProcess(
            MultiscreenProcess.binary,
            [
                "fleet", "send", "--broker", broker.url, "--site", Self.site, "--group", "t2", "--expect", "2",
                "--id", "group-1", "Boarding at gate A",
            ], environment: ["XDG_CONFIG_HOME": "/nonexistent"])
        #expect(try cli.waitForExit(timeout: 15) == 0, "\(cli.output)")
        #expect(FleetOperator.now() - cliStarted < 2.5, "returns at the second reply, not at its 3 s timeout")
        let lines = cli.standardOutput.split(separator: "\n").map(String.init)
        #expect(Set(lines.map { String($0.prefix { $0 != " " }) }) == ["gate-a", "gate-b"], "\(lines)")
        for (index, kiosk) in kiosks.enumerated() where kiosk.name != "lounge" {
            try kiosk.sway.waitForScreenshot("HEADLESS-2", "the group message on \(kiosk.name)") {
                $0.fraction(differingFrom: before[index]) > 0.01
            }
            #expect(try kiosk.status().contains("Boarding at gate A"))
        }
        // `all`: every kiosk.
        try desk.send(.send(text: "Airport closes at midnight", screen: nil), to: "all", id: "all-1")
        try desk.wait("replies from all three") { desk.repliers(to: "all-1").count == 3 }
        // One kiosk only.
        try desk.send(.send(text: "Lounge only", screen: nil), to: "lounge", id: "one-1")
        try desk.wait("the lounge's reply") { desk.repliers(to: "one-1") == ["lounge"] }
        // Malformed payloads on a cmd topic: error replies, and the kiosk keeps going.
        try desk.client.publish(topic: FleetTopics.command(site: Self.site, target: "lounge"), payload: [0x7B])
        try desk.send(.setRole(screen: "HEADLESS-2", role: "controller"), to: "lounge", id: "role-1")
        try desk.wait("the refusal of role.set") { desk.repliers(to: "role-1") == ["lounge"] }
        Thread.sleep(forTimeInterval: 0.5)  // time for a wrong kiosk to reply, if one would
        #expect(desk.repliers(to: "one-1") == ["lounge"])
        #expect(desk.repliers(to: "group-1") == ["gate-a", "gate-b"])  // seen by every operator subscribed
        let statuses = try kiosks.map { try $0.status() }
        #expect(statuses.allSatisfy { $0.contains("Airport closes at midnight") })
        #expect(statuses[2].contains("Lounge only") && !statuses[2].contains("Boarding at gate A"))
        #expect(!statuses[0].contains("Lounge only") && !statuses[1].contains("Lounge only"))
        #expect(statuses[2].contains("\"role\":\"external\""))  // role.set was refused: HEADLESS-2 stays external
        #expect(statuses[2].contains("\"malformed\":1"))
        // The retained fleet status follows: the lounge's latest shows its message, with screens and roles.
        try desk.wait("the lounge's retained status with its message") {
            desk.last("lounge", "status")?.contains("Lounge only") == true
        }
        let retained = desk.last("lounge", "status")!
        #expect(retained.utf8.count < 8192, "the retained status stays a few KB")
        let status = try JSONValue.parse(Array(retained.utf8)).objectValue
        #expect(status["kiosk"] == .string("lounge"))
        #expect(status["version"] != nil && status["uptimeSeconds"] != nil)
        guard case .array(let screens)? = status["screens"] else {
            Issue.record("no screens in \(status)")
            return
        }
        #expect(screens.count == 2)
        #expect(screens.allSatisfy { $0.objectValue["role"] != nil && $0.objectValue["width"] == .integer(320) })
        // A card through the operator CLI, and the events it caused on the kiosk's events topic.
        let card = try ChildProcess(
            MultiscreenProcess.binary,
            [
                "fleet", "card", "open", "--broker", broker.url, "--site", Self.site, "--kiosk", "lounge", "--screen",
                "HEADLESS-2", "Lounge card",
            ], environment: ["XDG_CONFIG_HOME": "/nonexistent"])
        #expect(try card.waitForExit(timeout: 15) == 0, "\(card.output)")
        #expect(card.standardOutput.hasPrefix(#"lounge {"id":"#), "\(card.standardOutput)")
        #expect(try kiosks[2].status().contains("Lounge card"))
        try desk.wait("the lounge's events") {
            let events = desk.messages.filter { $0.topic == "multiscreen/\(Self.site)/lounge/events" }
                .map { String(decoding: $0.payload, as: UTF8.self) }
            return events.contains { $0.contains(#""method":"card.opened""#) && $0.contains("Lounge card") }
                && events.contains { $0.contains(#""method":"message.received""#) && $0.contains("Lounge only") }
        }
        // `fleet status` without a target: what the broker retained, one line per kiosk and topic.
        let listing = try ChildProcess(
            MultiscreenProcess.binary, ["fleet", "status", "--broker", broker.url, "--site", Self.site],
            environment: ["XDG_CONFIG_HOME": "/nonexistent"])
        #expect(try listing.waitForExit(timeout: 15) == 0, "\(listing.output)")
        let listed = listing.standardOutput.split(separator: "\n").map(String.init).sorted()
        #expect(listed.filter { $0.hasSuffix(" online") } == ["gate-a online", "gate-b online", "lounge online"])
        #expect(listed.filter { $0.contains(" status: 2 screens (HEADLESS-1 controller") }.count == 3, "\(listed)")
        for kiosk in kiosks { #expect(kiosk.app.process.exitStatus == nil, "\(kiosk.name) still running") }
    }

    /// Commands published with QoS 1 by an operator that resends (same id) whatever the broker did not
    /// acknowledge, while the broker is stopped and started again: each shows up exactly once on the kiosk.
    @Test func aBrokerRestartedWhileCommandsArePublishedAppliesEachExactlyOnce() throws {
        let broker = try MosquittoBroker()
        let kiosk = try Kiosk("steady", groups: [], broker: broker)
        try kiosk.app.waitForLog("fleet link connected")
        let settings = FleetConfig(broker: try BrokerAddress(broker.url), site: Self.site)
        var desk = try FleetOperator(settings: settings, clientID: "desk")
        try desk.connect()
        let total = 40
        var index = 0
        var restarted = false
        while index < total {
            if index == 15 && !restarted {
                try broker.stop()
                restarted = true
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { try? broker.start() }
            }
            do {
                try desk.publish(
                    topic: FleetTopics.command(site: Self.site, target: "steady"),
                    payload: FleetOperator.request(.send(text: "restart-\(index)", screen: nil), id: "restart-\(index)")
                )
                index += 1
            } catch {
                Thread.sleep(forTimeInterval: 0.1)
                desk = try FleetOperator(settings: settings, clientID: "desk")
                try? desk.connect(timeout: 2)
            }
        }
        try kiosk.app.waitForLog("fleet link reconnected", timeout: 20)
        func applied(_ index: Int) -> Int {
            kiosk.app.log.split(separator: "\n").filter { $0.hasSuffix("for every screen: restart-\(index)") }.count
        }
        try waitUntil(timeout: 20, "all \(total) commands applied") { (0..<total).allSatisfy { applied($0) >= 1 } }
        Thread.sleep(forTimeInterval: 0.5)  // a late duplicate would show up here
        #expect((0..<total).filter { applied($0) != 1 } == [])
        let status = try kiosk.status()
        #expect(status.contains("\"disconnects\":1"))
        try kiosk.sway.waitForScreenshot("HEADLESS-2", "the external screen") { showsScreen($0, index: 1) }
    }

    /// `run --fleet URL` without a `[fleet]` section: site "default", the kiosk named after the host.
    @Test func runWithFleetJoinsWithoutAConfigSection() throws {
        let broker = try MosquittoBroker()
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 180)
        let app = try MultiscreenProcess(environment: sway.environment, arguments: ["run", "--fleet", broker.url])
        try app.waitForLog("fleet link connected")
        let desk = try FleetOperator(settings: FleetConfig(broker: try BrokerAddress(broker.url)))
        try desk.connect()
        try desk.subscribe(["multiscreen/default/+/online"])
        var online: [MosquittoMessage] = []
        let deadline = FleetOperator.now() + 5
        while online.isEmpty && FleetOperator.now() < deadline {
            try desk.step(until: FleetOperator.now() + 0.05)
            online += desk.takeMessages()
        }
        #expect(online.map(\.topic) == ["multiscreen/default/\(FleetConfig.hostName())/online"])
        #expect(online.first.map { String(decoding: $0.payload, as: UTF8.self) } == "true")
    }

    /// Issue 26: a playlist retained for a group with `fleet playlist` before a kiosk of the group starts plays on
    /// its external screen once it connects (the picture, drawn by the product); `--clear` takes it off again.
    @Test func aGroupPlaylistRetainedBeforeAKioskStartsPlaysOnItAndClearTakesItOff() throws {
        let broker = try MosquittoBroker()
        let media = try MediaFixtures.directory()
        defer { try? FileManager.default.removeItem(atPath: media) }
        try MediaFixtures.convert(["-size", "320x180", "xc:#dc2626", media + "/red.png"])
        func playlist(_ arguments: [String]) throws -> String {
            let cli = try ChildProcess(
                MultiscreenProcess.binary,
                ["fleet", "playlist", "--broker", broker.url, "--site", Self.site] + arguments,
                environment: ["XDG_CONFIG_HOME": "/nonexistent"])
            #expect(try cli.waitForExit(timeout: 15) == 0, "\(cli.output)")
            return cli.standardOutput
        }
        let retained = try playlist(["--group", "t2", "--all-external", "--fit", "stretch", media + "/red.png@30"])
        #expect(retained.contains("retained on multiscreen/\(Self.site)/t2/playlist"), "\(retained)")
        let kiosk = try Kiosk(
            "gate-a", groups: ["t2"], broker: broker,
            extra: """
                allow = ["playlist.*", "status"]
                media = ["\(media)"]
                """)
        let red = RGBColor(hex: 0xDC_26_26)
        _ = try kiosk.sway.waitForScreenshot("HEADLESS-2", timeout: 20, "the group's playlist on gate-a") {
            $0.fraction(of: red, tolerance: 8) > 0.8
        }
        #expect(try kiosk.status().contains(#""content":"playlist""#))
        let desk = try Operator(broker)
        try desk.wait("the document in force in the retained status") {
            desk.last("gate-a", "status")?.contains(#""topic":"multiscreen/\#(Self.site)/t2/playlist""#) == true
        }
        let listing = try ChildProcess(
            MultiscreenProcess.binary, ["fleet", "status", "--broker", broker.url, "--site", Self.site],
            environment: ["XDG_CONFIG_HOME": "/nonexistent"])
        #expect(try listing.waitForExit(timeout: 15) == 0, "\(listing.output)")
        let digest = try #require(
            retained.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").last.map(String.init))
        #expect(listing.standardOutput.contains(", playlist t2 \(digest)"), "\(listing.standardOutput) \(retained)")
        #expect(try playlist(["--group", "t2", "--clear"]).contains("withdrawn"))
        _ = try kiosk.sway.waitForScreenshot("HEADLESS-2", "the playlist cleared") {
            $0.fraction(of: red, tolerance: 8) < 0.1
        }
        #expect(try !kiosk.status().contains(#""content":"playlist""#))
        #expect(kiosk.app.process.exitStatus == nil)
    }

    /// `fleet capture`: the PNG of a kiosk's screen comes back through the broker and equals what the compositor shows
    /// (a picture shown on it); a kiosk whose config does not grant `screen.capture` refuses.
    @Test func fleetCaptureBringsBackTheScreensPicture() throws {
        let broker = try MosquittoBroker()
        let media = try MediaFixtures.directory()
        defer { try? FileManager.default.removeItem(atPath: media) }
        try MediaFixtures.convert(["-size", "320x180", "xc:#2563eb", media + "/blue.png"])
        let kiosk = try Kiosk(
            "gate-c", groups: [], broker: broker,
            extra: """
                allow = ["playlist.*", "screen.capture", "status"]
                media = ["\(media)"]
                """)
        // A kiosk whose allow does not grant screen.capture, up until its refusal is checked below.
        let closed = try Kiosk("gate-d", groups: [], broker: broker)
        let shown = try kiosk.app.command([
            "media", "show", "--screen", "HEADLESS-2", "--fit", "stretch", media + "/blue.png",
        ])
        #expect(shown.status == 0, "\(shown.output)")
        let blue = RGBColor(hex: 0x25_63_EB)
        let screenshot = try kiosk.sway.waitForScreenshot("HEADLESS-2", "the blue picture") {
            $0.fraction(of: blue, tolerance: 8) > 0.9
        }
        func capture(_ kiosk: String, to file: String) throws -> (status: Int32, output: String) {
            let cli = try ChildProcess(
                MultiscreenProcess.binary,
                [
                    "fleet", "capture", "--broker", broker.url, "--site", Self.site, "--kiosk", kiosk, "--screen",
                    "HEADLESS-2", "-o", file,
                ], environment: ["XDG_CONFIG_HOME": "/nonexistent"])
            let status = try cli.waitForExit(timeout: 30)
            return (status, cli.output)
        }
        let file = media + "/proof.png"
        let captured = try capture("gate-c", to: file)
        #expect(captured.status == 0, "\(captured.output)")
        #expect(captured.output.contains("gate-c HEADLESS-2: 320×180 PNG of"), "\(captured.output)")
        let picture = try Screenshot(contentsOfFile: file)
        #expect(picture.width == screenshot.width && picture.height == screenshot.height)
        #expect(picture.fraction(of: blue, tolerance: 8) > 0.9)
        let refused = try capture("gate-d", to: media + "/none.png")
        #expect(refused.status == 1, "\(refused.output)")
        #expect(refused.output.contains("screen.capture is not permitted to the fleet link"), "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: media + "/none.png"))
        #expect(closed.app.process.isRunning)
    }

    @Test func aKilledKioskGoesOfflineThroughItsLastWill() throws {
        let broker = try MosquittoBroker()
        let kiosk = try Kiosk("doomed", groups: [], broker: broker, extra: "keepalive = 5")
        let desk = try Operator(broker)
        try desk.wait("online") { desk.last("doomed", "online") == "true" && desk.last("doomed", "status") != nil }
        let watch = try ChildProcess(
            MultiscreenProcess.binary,
            ["fleet", "watch", "--broker", broker.url, "--site", Self.site, "--timeout", "20"],
            environment: ["XDG_CONFIG_HOME": "/nonexistent"])
        defer { watch.kill() }
        try watch.waitForLine(containing: "doomed status: 2 screens", timeout: 10)
        try watch.waitForLine(containing: "doomed online", timeout: 10)
        kiosk.app.process.signal(SIGKILL)
        let killed = FleetOperator.now()
        try desk.wait("offline through the will") { desk.last("doomed", "online") == "false" }
        #expect(FleetOperator.now() - killed < 8)  // within the keep-alive (the closed socket is usually instant)
        try watch.waitForLine(containing: "doomed offline", timeout: 10)
    }

    @Test func wrongCredentialsAreAClearErrorAndTheScreensRunOn() throws {
        let broker = try MosquittoBroker(users: ["kiosk": "secret"])
        let credentials = broker.directory + "/wrong.pass"
        try "kiosk:not-the-secret\n".write(toFile: credentials, atomically: true, encoding: .utf8)
        let kiosk = try Kiosk("locked-out", groups: [], broker: broker, extra: "credentials = \"\(credentials)\"")
        try kiosk.app.waitForLog("refused the fleet link: Connection Refused: not authorised")
        try kiosk.sway.waitForScreenshot("HEADLESS-2", "the external screen") { showsScreen($0, index: 1) }
        let sent = try kiosk.app.command(["send", "local still works"])
        #expect(sent.status == 0)
        let status = try kiosk.status()
        #expect(status.contains("local still works"))
        #expect(status.contains("\"refusals\":"))
        #expect(status.contains("\"lastRefusal\":5"))
        #expect(status.contains("\"state\":\"refused\""))
        #expect(
            status.contains("\"lastError\":\"the broker refused the connection: Connection Refused: not authorised."))
        #expect(kiosk.app.process.exitStatus == nil)
    }
}
