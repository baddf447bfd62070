import CompositorHarness
import Fleet
import Foundation
import Messaging
import Testing

/// The fleet link against a real mosquitto on loopback, with a stand-in display thread (``FakeDisplay``): topics,
/// ids, errors, deduplication, the persistent session, broker restarts, refusals, presence and status.
@Suite(.serialized) struct FleetLinkTests {
    private func send(_ client: FleetOperator, to target: String, _ message: Message, id: String) throws {
        try client.publish(
            topic: FleetTopics.command(site: "test", target: target), payload: FleetOperator.request(message, id: id))
    }

    private func sendRaw(_ client: FleetOperator, to target: String, _ payload: String) throws {
        try client.publish(topic: FleetTopics.command(site: "test", target: target), payload: Array(payload.utf8))
    }

    @Test func kioskGroupAndAllCommandsReachTheKioskAndRepliesCarryTheirIDs() throws {
        let broker = try MosquittoBroker()
        let display = try FakeDisplay()
        let link = try FleetLink(
            config: try kioskConfig(broker, kiosk: "k1", groups: ["g1"]), bus: display.bus, options: testOptions())
        defer { link.stop() }
        let client = try makeOperator(broker)
        let received = Received(client)
        try received.wait("k1 online") { _ in received.last("multiscreen/test/k1/online") == "true" }
        try send(client, to: "k1", .send(text: "to the kiosk", screen: nil), id: "a")
        try send(client, to: "g1", .send(text: "to its group", screen: "HDMI-A-1"), id: "b")
        try send(client, to: "g2", .send(text: "to another group", screen: nil), id: "c")
        try send(client, to: "all", .send(text: "to the site", screen: nil), id: "d")
        try send(client, to: "k2", .send(text: "to another kiosk", screen: nil), id: "e")
        try received.wait("3 replies from k1") { _ in received.replies(kiosk: "k1").count >= 3 }
        #expect(display.sentTexts == ["to the kiosk", "to its group", "to the site"])
        let replies = received.replies(kiosk: "k1")
        #expect(replies.map { $0["id"] } == [.string("a"), .string("b"), .string("d")])
        #expect(replies[1]["method"] == .string("send"))
        #expect(replies[1]["result"]?.objectValue["screen"] == .string("HDMI-A-1"))
        // Events of applied messages are streamed; nothing else was applied meanwhile.
        try received.wait("message.received events") { messages in
            messages.filter { $0.topic == "multiscreen/test/k1/events" }.count >= 3
        }
        #expect(link.counters["requests"] == 3)
        #expect(link.counters["replies"] == 3)
        // The JSON-RPC 2.0 form is answered in kind, as on the local socket.
        try sendRaw(
            client, to: "k1", #"{"jsonrpc": "2.0", "id": 99, "method": "send", "params": {"text": "rpc", "ttl": 60}}"#)
        try sendRaw(client, to: "k1", #"{"jsonrpc": "1.0", "id": 100, "method": "status"}"#)
        try received.wait("the JSON-RPC replies") { _ in received.replies(kiosk: "k1").count >= 5 }
        // Replies to different requests need not come in request order: an error is answered at once, a result
        // after the display thread's turn.
        func reply(_ id: Int) -> [String: JSONValue] {
            received.replies(kiosk: "k1").first { $0["id"] == .integer(id) } ?? [:]
        }
        let rpc = reply(99)
        #expect(rpc["jsonrpc"] == .string("2.0") && rpc["id"] == .integer(99) && rpc["method"] == nil)
        #expect(rpc["result"]?.objectValue["id"] != nil)
        let wrongVersion = reply(100)
        #expect(wrongVersion["id"] == .integer(100))
        #expect(wrongVersion["error"]?.objectValue["code"] == .integer(-32600))
        #expect(display.sentTexts.last == "rpc")
    }

    @Test func malformedPayloadsGetErrorRepliesAndTheLinkKeepsWorking() throws {
        let broker = try MosquittoBroker()
        let display = try FakeDisplay()
        let log = LogRecorder()
        var options = testOptions()
        options.logger = log.logger()
        let link = try FleetLink(config: try kioskConfig(broker, kiosk: "k1"), bus: display.bus, options: options)
        defer { link.stop() }
        let client = try makeOperator(broker)
        let received = Received(client)
        try received.wait("k1 online") { _ in received.last("multiscreen/test/k1/online") == "true" }
        let bad = [
            "not json\n\u{1b}[2J at all", "[1, 2]", #"{"method": "send", "params": {"text": "no id"}}"#,
            #"{"id": 7, "method": "card.flip"}"#, #"{"id": 8, "method": "send", "params": {"txt": "typo"}}"#,
            #"{"id": 9, "method": "role.set", "params": {"screen": "HDMI-A-1", "role": "controller"}}"#,
            #"{"id": 10, "method": "events.subscribe"}"#, "", String(repeating: "x", count: 500_000),
            #"{"id": null, "method": "status"}"#, "\u{FF}\u{FE}",
        ]
        for payload in bad { try sendRaw(client, to: "k1", payload) }
        try send(client, to: "k1", .send(text: "still alive", screen: nil), id: "ok")
        try received.wait("\(bad.count + 1) replies") { _ in received.replies(kiosk: "k1").count >= bad.count + 1 }
        let replies = received.replies(kiosk: "k1")
        func code(_ index: Int) -> JSONValue? { replies[index]["error"]?.objectValue["code"] }
        #expect(code(0) == .integer(-32700))
        #expect(code(1) == .integer(-32600))
        #expect(code(2) == .integer(-32600))
        #expect(replies[2]["id"] == .null)
        #expect(code(3) == .integer(-32601))
        #expect(replies[3]["id"] == .integer(7))
        #expect(code(4) == .integer(-32602))
        // Outside `allow`: the one refusal every transport gives (issue 27: one error code per refusal).
        #expect(code(5) == .integer(-32004))
        #expect(
            replies[5]["error"]?.objectValue["message"]
                == .string(
                    "role.set is not permitted to the fleet link (permitted: card.close, card.discard, "
                        + "card.open, card.reopen, send, status)"))
        #expect(code(6) == .integer(-32004))
        #expect(code(7) == .integer(-32700))
        #expect(code(8) == .integer(-32002))
        #expect(code(9) == .integer(-32600))
        #expect(code(10) == .integer(-32700))
        #expect(replies[11]["id"] == .string("ok"))
        #expect(replies[11]["result"] != nil)
        // Only the valid request (and the link's own status refreshes) reached the display thread.
        #expect(display.sentTexts == ["still alive"])
        #expect(!display.messages.contains { $0.method == .setRole })
        #expect(link.counters["notAllowed"] == 2)
        // The first malformed payloads are logged with their start, escaped: a payload cannot forge a log line.
        let logged = log.recorded.filter { $0.contains("malformed fleet request") }
        #expect(logged.count == 5, "\(logged)")
        for line in log.recorded { #expect(!line.hasRawControlCharacters, "raw control in \(line)") }
    }

    /// docs/fleet.md's recipe with the broker's own tools: `mosquitto_pub` a request, `mosquitto_sub` the retained
    /// status.
    @Test func theMosquittoPubSubRecipeWorks() throws {
        let broker = try MosquittoBroker()
        let display = try FakeDisplay()
        let link = try FleetLink(
            config: try kioskConfig(broker, kiosk: "t2-gate-a", groups: ["terminal-2"]), bus: display.bus,
            options: testOptions())
        defer { link.stop() }
        try waitForCounters(link, "a status published") { ($0["statusPublished"] ?? 0) >= 1 }
        let port = "\(broker.port)"
        // A retained probe on a second topic tells when mosquitto_sub's subscriptions are in place.
        let probe = try makeOperator(broker)
        try probe.publish(topic: "multiscreen/test/probe", payload: Array("ready".utf8), retain: true)
        let replies = try ChildProcess(
            "mosquitto_sub",
            [
                "-h", "127.0.0.1", "-p", port, "-t", "multiscreen/test/probe", "-t", "multiscreen/test/+/reply", "-v",
                "-C", "2",
            ])
        defer { replies.kill() }
        try replies.waitForLine(containing: "multiscreen/test/probe ready", timeout: 10)
        let pub = try ChildProcess(
            "mosquitto_pub",
            [
                "-h", "127.0.0.1", "-p", port, "-q", "1", "-t", "multiscreen/test/terminal-2/cmd", "-m",
                #"{"id": "b-17", "method": "send", "params": {"text": "Gate A2 now boarding"}}"#,
            ])
        #expect(try pub.waitForExit(timeout: 10) == 0)
        #expect(try replies.waitForExit(timeout: 10) == 0)
        #expect(replies.standardOutput.contains(#"multiscreen/test/t2-gate-a/reply {"id":"b-17","method":"send""#))
        #expect(display.sentTexts == ["Gate A2 now boarding"])
        let status = try ChildProcess(
            "mosquitto_sub",
            ["-h", "127.0.0.1", "-p", port, "-t", "multiscreen/test/+/status", "-v", "-W", "2", "-C", "1"])
        #expect(try status.waitForExit(timeout: 10) == 0)
        #expect(status.standardOutput.hasPrefix("multiscreen/test/t2-gate-a/status {"))
    }

    /// `[fleet] media`: a fleet granted `media.show` names files inside the configured directories only; one outside
    /// (here through `..`) is refused before the display thread, with what is allowed.
    @Test func mediaShowNamesFilesInsideTheMediaDirectoriesOnly() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-media-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/signage", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: root + "/signage/menu.png", contents: Data([1]))
        FileManager.default.createFile(atPath: root + "/secret.png", contents: Data([1]))
        let broker = try MosquittoBroker()
        let display = try FakeDisplay()
        var config = try kioskConfig(broker, kiosk: "k1")
        config.allow = ["media.*", "status"]
        config.media = try MediaDirectories([root + "/signage"])
        let link = try FleetLink(config: config, bus: display.bus, options: testOptions())
        defer { link.stop() }
        let client = try makeOperator(broker)
        let received = Received(client)
        try received.wait("k1 online") { _ in received.last("multiscreen/test/k1/online") == "true" }
        try send(client, to: "k1", .showMedia(screen: "HDMI-A-2", path: root + "/signage/menu.png"), id: "in")
        try send(client, to: "k1", .showMedia(screen: "HDMI-A-2", path: root + "/signage/../secret.png"), id: "out")
        try received.wait("2 replies") { _ in received.replies(kiosk: "k1").count >= 2 }
        // Replies come as they are ready: the refusal at once, the request that reached the display thread later.
        let replies = received.replies(kiosk: "k1")
        #expect(Set(replies.compactMap { $0["id"] }) == [.string("in"), .string("out")])
        let refusal = try #require(replies.first { $0["id"] == .string("out") })
        #expect(refusal["error"]?.objectValue["code"] == .integer(-32004))
        let expected =
            "is not a file inside the media directories the fleet link may name (\(config.media!.directories[0]))"
        guard case .string(let message)? = refusal["error"]?.objectValue["message"] else {
            Issue.record("no error message: \(refusal)")
            return
        }
        #expect(message.hasSuffix(expected), "\(message)")
        #expect(display.messages.filter { $0.method == .showMedia }.count == 1)
    }

    /// A retained command would be applied again at every start: one found on subscribing is refused.
    @Test func aRetainedCommandIsRefused() throws {
        let broker = try MosquittoBroker()
        let client = try makeOperator(broker)
        let received = Received(client)
        try client.publish(
            topic: FleetTopics.command(site: "test", target: "all"),
            payload: FleetOperator.request(.send(text: "retained", screen: nil), id: "r"), retain: true)
        let display = try FakeDisplay()
        let link = try FleetLink(
            config: try kioskConfig(broker, kiosk: "k1"), bus: display.bus, options: testOptions())
        defer { link.stop() }
        try received.wait("the refusal") { _ in !received.replies(kiosk: "k1").isEmpty }
        let reply = received.replies(kiosk: "k1")[0]
        #expect(reply["error"]?.objectValue["code"] == .integer(-32600))
        #expect(reply["error"]?.objectValue["message"]?.serialized.contains("retained commands are refused") == true)
        #expect(display.sentTexts.isEmpty)
    }

    /// A full ring to the display thread: refused as `busy` with the request's id (counted), never dropped
    /// silently; what was queued is answered once the display thread drains it.
    @Test func aFullRingIsAnsweredBusy() throws {
        let broker = try MosquittoBroker()
        let display = try FakeDisplay()
        var options = testOptions()
        options.producerCapacity = 4
        let link = try FleetLink(config: try kioskConfig(broker, kiosk: "k1"), bus: display.bus, options: options)
        defer { link.stop() }
        try waitForCounters(link, "the first status") { ($0["statusPublished"] ?? 0) >= 1 }
        display.paused.store(true, ordering: .relaxed)
        let client = try makeOperator(broker)
        let received = Received(client)
        for index in 0..<6 { try send(client, to: "k1", .send(text: "b\(index)", screen: nil), id: "b\(index)") }
        try received.wait("two busy replies") { _ in received.replies(kiosk: "k1").count == 2 }
        for reply in received.replies(kiosk: "k1") {
            #expect(reply["error"]?.objectValue["code"] == .integer(-32003))
        }
        #expect(received.replies(kiosk: "k1").map { $0["id"] } == [.string("b4"), .string("b5")])
        #expect(link.counters["rejectedBusy"] == 2)
        display.paused.store(false, ordering: .relaxed)
        try received.wait("the four queued answered") { _ in received.replies(kiosk: "k1").count == 6 }
        #expect(display.sentTexts == ["b0", "b1", "b2", "b3"])
    }

    /// The same id three times (to the kiosk, its group, every kiosk): applied once, and every copy answered with
    /// the first reply (an operator resending after a lost acknowledgement gets its answer).
    @Test func aRedeliveredIDIsAppliedOnceAndAnswered() throws {
        let broker = try MosquittoBroker()
        let display = try FakeDisplay()
        let link = try FleetLink(
            config: try kioskConfig(broker, kiosk: "k1", groups: ["g"]), bus: display.bus, options: testOptions())
        defer { link.stop() }
        let client = try makeOperator(broker)
        let received = Received(client)
        try received.wait("k1 online") { _ in received.last("multiscreen/test/k1/online") == "true" }
        try send(client, to: "k1", .send(text: "once", screen: nil), id: "same")
        try send(client, to: "g", .send(text: "once", screen: nil), id: "same")
        try send(client, to: "all", .send(text: "once", screen: nil), id: "same")
        try send(client, to: "k1", .send(text: "after", screen: nil), id: 42.description)
        try received.wait("4 replies") { _ in received.replies(kiosk: "k1").count >= 4 }
        try waitForCounters(link, "3 requests counted, 2 duplicates") {
            $0["requests"] == 4 && $0["duplicates"] == 2
        }
        #expect(display.sentTexts == ["once", "after"])
        let replies = received.replies(kiosk: "k1")
        let same = replies.filter { $0["id"] == .string("same") }
        #expect(same.count == 3 && same.allSatisfy { $0["result"] == same[0]["result"] }, "\(replies)")
    }

    /// A retained `online = false` published by someone else while the kiosk is connected is corrected at once:
    /// operators never see a connected kiosk as offline for good.
    @Test func aSpoofedOfflineIsCorrected() throws {
        let broker = try MosquittoBroker()
        let display = try FakeDisplay()
        let link = try FleetLink(
            config: try kioskConfig(broker, kiosk: "k1"), bus: display.bus, options: testOptions())
        defer { link.stop() }
        let client = try makeOperator(broker)
        let received = Received(client)
        try received.wait("k1 online") { _ in received.last("multiscreen/test/k1/online") == "true" }
        try client.publish(topic: "multiscreen/test/k1/online", payload: Array("false".utf8), retain: true)
        try received.wait("the spoof, then online again") { messages in
            let presence = messages.filter { $0.topic == "multiscreen/test/k1/online" }
                .map { String(decoding: $0.payload, as: UTF8.self) }
            return presence.last == "true" && presence.dropLast().last == "false"
        }
        try waitForCounters(link, "one correction") { $0["onlineCorrected"] == 1 }
        // What a later subscriber gets, retained, is the truth.
        let late = try makeOperator(broker)
        let lateReceived = Received(late)
        try lateReceived.wait("the retained presence") { _ in
            lateReceived.last("multiscreen/test/k1/online") == "true"
        }
    }

    @Test func commandsPublishedWhileTheKioskIsOfflineArriveWhenItReturns() throws {
        let broker = try MosquittoBroker()
        let client = try makeOperator(broker)
        let received = Received(client)
        do {
            // The first connection creates the persistent session and its subscriptions.
            let display = try FakeDisplay()
            let link = try FleetLink(
                config: try kioskConfig(broker, kiosk: "k1"), bus: display.bus, options: testOptions())
            try received.wait("k1 online") { _ in received.last("multiscreen/test/k1/online") == "true" }
            link.stop()
            try received.wait("k1 offline after an orderly stop") { _ in
                received.last("multiscreen/test/k1/online") == "false"
            }
        }
        for index in 0..<20 {
            try send(client, to: "k1", .send(text: "queued \(index)", screen: nil), id: "q\(index)")
        }
        let display = try FakeDisplay()
        let link = try FleetLink(
            config: try kioskConfig(broker, kiosk: "k1"), bus: display.bus, options: testOptions())
        defer { link.stop() }
        try received.wait("20 replies") { _ in received.replies(kiosk: "k1").count >= 20 }
        #expect(display.sentTexts == (0..<20).map { "queued \($0)" })
    }

    /// Commands published with QoS 1 by an operator that retries until acknowledged, while the broker is stopped
    /// and started again: each is applied exactly once.
    @Test func aBrokerRestartLosesAndDuplicatesNothing() throws {
        let broker = try MosquittoBroker()
        let display = try FakeDisplay()
        let link = try FleetLink(
            config: try kioskConfig(broker, kiosk: "k1"), bus: display.bus, options: testOptions())
        defer { link.stop() }
        try waitForCounters(link, "connected") { $0["connected"] == 1 }
        let total = 60
        var client = try FleetOperator(settings: try kioskConfig(broker, kiosk: "operator"), clientID: "op")
        try client.connect()
        var index = 0
        var restarted = false
        while index < total {
            if index == 20 && !restarted {
                // Stop the broker after a burst; everything already acknowledged must survive in its session.
                try broker.stop()
                restarted = true
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { try? broker.start() }
            }
            do {
                try send(client, to: "k1", .send(text: "n\(index)", screen: nil), id: "r\(index)")
                index += 1
            } catch {
                // Unacknowledged: resend with the same id on a new connection (maybe a duplicate: the kiosk drops it).
                Thread.sleep(forTimeInterval: 0.1)
                client = try FleetOperator(settings: try kioskConfig(broker, kiosk: "operator"), clientID: "op")
                try? client.connect(timeout: 2)
            }
        }
        try waitUntil(timeout: 20, "\(total) messages applied (\(display.sentTexts.count) so far)") {
            display.sentTexts.count >= total
        }
        Thread.sleep(forTimeInterval: 0.5)  // a late duplicate would show up here
        #expect(display.sentTexts == (0..<total).map { "n\($0)" })
        #expect(link.counters["disconnects"]! >= 1)
        #expect(link.counters["connects"]! >= 2)
    }

    @Test func wrongCredentialsAreAClearErrorInTheCounters() throws {
        let broker = try MosquittoBroker(users: ["kiosk": "right"])
        let display = try FakeDisplay()
        let credentials = broker.directory + "/kiosk.pass"
        try "kiosk:wrong\n".write(toFile: credentials, atomically: true, encoding: .utf8)
        var config = try kioskConfig(broker, kiosk: "k1")
        config.credentialsFile = credentials
        let link = try FleetLink(config: config, bus: display.bus, options: testOptions())
        defer { link.stop() }
        try waitForCounters(link, "two refusals") { ($0["refusals"] ?? 0) >= 2 }
        #expect(link.counters["connected"] == 0)
        // CONNACK 5 "not authorised" (mosquitto's answer to a bad password in MQTT 3.1.1) or 4.
        #expect([4, 5].contains(link.counters["lastRefusal"]))
        #expect(link.notes["state"] == "refused")
        #expect(link.notes["lastError"]?.hasPrefix("the broker refused the connection: Connection Refused") == true)
        #expect(link.notes["broker"] == broker.url)
        // With the right password the same kiosk gets in.
        try "kiosk:right\n".write(toFile: credentials, atomically: true, encoding: .utf8)
        let good = try FleetLink(config: config, bus: display.bus, options: testOptions())
        defer { good.stop() }
        try waitForCounters(good, "connected with the right password") { $0["connected"] == 1 }
        #expect(good.notes["state"] == "connected")
    }

    @Test func onlineAndStatusAreRetained() throws {
        let broker = try MosquittoBroker()
        let display = try FakeDisplay()
        let link = try FleetLink(
            config: try kioskConfig(broker, kiosk: "k1", groups: ["g1", "g2"]), bus: display.bus,
            options: testOptions())
        try waitForCounters(link, "a status published") { ($0["statusPublished"] ?? 0) >= 1 }
        // A late subscriber gets both from the broker's retained store.
        let client = try makeOperator(broker)
        let received = Received(client)
        try received.wait("retained online and status") { _ in
            received.last("multiscreen/test/k1/online") == "true" && received.last("multiscreen/test/k1/status") != nil
        }
        let status = try JSONValue.parse(Array(received.last("multiscreen/test/k1/status")!.utf8))
        #expect(status.objectValue["kiosk"] == .string("k1"))
        #expect(status.objectValue["site"] == .string("test"))
        #expect(status.objectValue["groups"] == .array([.string("g1"), .string("g2")]))
        #expect(status.objectValue["version"] == .string("test-version"))
        #expect(status.objectValue["screens"] == .array([]))
        #expect(status.objectValue["fleet"] == nil)  // the fake display does not report sources
        // A change (an applied message) refreshes it; the retained copy keeps 5 messages, texts cut at 200.
        for index in 0..<6 { try send(client, to: "k1", .send(text: "m\(index)", screen: nil), id: "s\(index)") }
        try send(client, to: "k1", .send(text: String(repeating: "long ", count: 400), screen: nil), id: "s-long")
        try received.wait("a status showing the long message") { _ in
            received.last("multiscreen/test/k1/status")?.contains("long long") == true
        }
        let refreshed = try JSONValue.parse(Array(received.last("multiscreen/test/k1/status")!.utf8))
        guard case .array(let messages)? = refreshed.objectValue["messages"] else {
            Issue.record("no messages in \(refreshed)")
            return
        }
        #expect(messages.count == 5)
        #expect(messages[0].objectValue["text"] == .string(String(repeating: "long ", count: 40) + "…"))
        #expect(messages[1].objectValue["text"] == .string("m5"))
        link.stop()
        try received.wait("offline after stop") { _ in received.last("multiscreen/test/k1/online") == "false" }
    }
}

/// The mosquitto ACL of docs/fleet.md ("A mosquitto ACL"), read from the page, for site "test": each kiosk reads only
/// its own, its groups' and the site's commands and writes only its own reply, events, status and online topics.
@Suite(.serialized) struct FleetACLTests {
    /// The page's ACL block as written, its site `sfo` renamed `test`.
    static func documentedACL() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/fleet.md"), encoding: .utf8)
        let section = try #require(page.components(separatedBy: "## A mosquitto ACL").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```\n").dropFirst().first)
        #expect(block.contains("pattern read multiscreen/sfo/%u/cmd"), "the ACL block of docs/fleet.md: \(block)")
        return block.replacingOccurrences(of: "multiscreen/sfo/", with: "multiscreen/test/")
    }

    @Test func eachKioskIsConfinedToItsOwnTopics() throws {
        let broker = try MosquittoBroker(
            users: ["t2-gate-a": "a", "t2-gate-b": "b", "operator": "o"], acl: try Self.documentedACL())
        func credentials(_ user: String, _ password: String) throws -> String {
            let path = broker.directory + "/\(user).pass"
            try "\(user):\(password)\n".write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let display = try FakeDisplay()
        var config = try kioskConfig(broker, kiosk: "t2-gate-a", groups: ["terminal-2"])
        config.credentialsFile = try credentials("t2-gate-a", "a")
        let link = try FleetLink(config: config, bus: display.bus, options: testOptions())
        defer { link.stop() }
        var operatorSettings = try kioskConfig(broker, kiosk: "operator")
        operatorSettings.credentialsFile = try credentials("operator", "o")
        let desk = try FleetOperator(settings: operatorSettings)
        try desk.connect()
        try desk.subscribe(["multiscreen/test/#"])
        let received = Received(desk)
        try received.wait("t2-gate-a online") { _ in received.last("multiscreen/test/t2-gate-a/online") == "true" }
        // Allowed: the kiosk's own, its group's and the site's commands, and its replies.
        for (target, id) in [("t2-gate-a", "1"), ("terminal-2", "2"), ("all", "3")] {
            try desk.publish(
                topic: FleetTopics.command(site: "test", target: target),
                payload: FleetOperator.request(.send(text: "to \(target)", screen: nil), id: id))
        }
        try received.wait("three replies") { _ in received.replies(kiosk: "t2-gate-a").count == 3 }
        // Confined: t2-gate-b's credentials cannot write t2-gate-a's status or read t2-gate-a's commands.
        var rogueSettings = try kioskConfig(broker, kiosk: "t2-gate-b")
        rogueSettings.credentialsFile = try credentials("t2-gate-b", "b")
        let rogue = try FleetOperator(settings: rogueSettings, clientID: "t2-gate-b")
        try rogue.connect()
        try rogue.subscribe(["multiscreen/test/t2-gate-a/cmd", "multiscreen/test/terminal-2/cmd"])
        try rogue.publish(topic: "multiscreen/test/t2-gate-a/status", payload: Array("forged".utf8), retain: true)
        try rogue.publish(topic: "multiscreen/test/t2-gate-a/cmd", payload: FleetOperator.request(.status, id: "x"))
        try desk.publish(
            topic: FleetTopics.command(site: "test", target: "t2-gate-a"),
            payload: FleetOperator.request(.send(text: "private", screen: nil), id: "4"))
        try received.wait("the fourth reply") { _ in received.replies(kiosk: "t2-gate-a").count == 4 }
        try rogue.step(until: FleetOperator.now() + 0.3)
        #expect(rogue.takeMessages().isEmpty)
        #expect(received.last("multiscreen/test/t2-gate-a/status") != "forged")
        #expect(!received.replies(kiosk: "t2-gate-a").contains { $0["id"] == .string("x") })
        #expect(display.sentTexts == ["to t2-gate-a", "to terminal-2", "to all", "private"])
    }
}

/// `mqtts://`: the link verifies the broker's certificate against the configured CA.
@Suite(.serialized) struct FleetTLSTests {
    @Test func aKioskConnectsOverTLSAndRefusesAnUnknownCertificate() throws {
        let broker = try MosquittoBroker(tls: true)
        #expect(broker.url.hasPrefix("mqtts://"))
        let display = try FakeDisplay()
        var config = try kioskConfig(broker, kiosk: "k1")
        config.caFile = broker.caFile
        let link = try FleetLink(config: config, bus: display.bus, options: testOptions())
        defer { link.stop() }
        var operatorSettings = try kioskConfig(broker, kiosk: "operator")
        operatorSettings.caFile = broker.caFile
        let desk = try FleetOperator(settings: operatorSettings)
        try desk.connect()
        try desk.subscribe(["multiscreen/test/+/reply", "multiscreen/test/+/online"])
        let received = Received(desk)
        try received.wait("k1 online over TLS") { _ in received.last("multiscreen/test/k1/online") == "true" }
        try desk.publish(
            topic: FleetTopics.command(site: "test", target: "k1"),
            payload: FleetOperator.request(.send(text: "over TLS", screen: nil), id: "t1"))
        try received.wait("the reply") { _ in received.replies(kiosk: "k1").count == 1 }
        #expect(display.sentTexts == ["over TLS"])

        // A CA that did not sign the broker's certificate: the kiosk never connects (and keeps trying).
        let otherCA = broker.directory + "/other"
        try FileManager.default.createDirectory(atPath: otherCA, withIntermediateDirectories: true)
        try MosquittoBroker.makeCertificates(in: otherCA, caName: "stranger")
        var untrusting = try kioskConfig(broker, kiosk: "k2")
        untrusting.caFile = otherCA + "/stranger.pem"
        let refused = try FleetLink(config: untrusting, bus: display.bus, options: testOptions())
        defer { refused.stop() }
        // The first attempt has failed (a condition, not a fixed wait): it never connected, then or since.
        try waitUntil(timeout: 10, "a failed attempt (notes: \(refused.notes))") {
            refused.notes["state"] == "retrying" && refused.notes["lastError"] != nil
        }
        #expect(refused.counters["connected"] == 0)
        #expect(refused.counters["connects"] == 0)
        #expect(received.last("multiscreen/test/k2/online") == nil)
    }

    @Test func aKioskPresentsItsClientCertificate() throws {
        let broker = try MosquittoBroker(tls: true, requireClientCertificate: true)
        let identity = try #require(broker.clientCertificate)
        let display = try FakeDisplay()
        var config = try kioskConfig(broker, kiosk: "k1")
        config.caFile = broker.caFile
        config.certFile = identity.certificate
        config.keyFile = identity.key
        let link = try FleetLink(config: config, bus: display.bus, options: testOptions())
        defer { link.stop() }
        try waitForCounters(link, "connected with its certificate") { $0["connected"] == 1 }
        // Without one, the broker ends the TLS handshake: never connected.
        var anonymous = try kioskConfig(broker, kiosk: "k2")
        anonymous.caFile = broker.caFile
        let refused = try FleetLink(config: anonymous, bus: display.bus, options: testOptions())
        defer { refused.stop() }
        // The first attempt has failed (a condition, not a fixed wait): it never connected, then or since.
        try waitUntil(timeout: 10, "a failed attempt (notes: \(refused.notes))") {
            refused.notes["state"] == "retrying" && refused.notes["lastError"] != nil
        }
        #expect(refused.counters["connects"] == 0)
        #expect(refused.notes["state"] == "retrying")
        #expect(refused.notes["lastError"] != nil)
    }
}
