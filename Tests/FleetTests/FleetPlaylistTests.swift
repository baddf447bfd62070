import CompositorHarness
import Foundation
import Messaging
import Testing

@testable import Fleet

/// Retained playlist documents (a desired state, not a command) and proof of play on the history topic, against a
/// real mosquitto on loopback with a stand-in display thread (``FakeDisplay``).
@Suite(.serialized) struct FleetPlaylistTests {
    /// A kiosk allowed playlists, with media directory `media`, and two external screens and a controller.
    private func playlistKiosk(
        _ broker: MosquittoBroker, kiosk: String = "k1", groups: [String] = ["g1"], media: String,
        options: FleetLink.Options = testOptions()
    ) throws -> (FakeDisplay, FleetLink) {
        let display = try FakeDisplay()
        display.screens.withLock {
            $0 = [("eDP-1", "controller"), ("HDMI-A-1", "external"), ("HDMI-A-2", "external")]
        }
        var config = try kioskConfig(broker, kiosk: kiosk, groups: groups)
        config.allow = ["playlist.*", "status"]
        config.media = try MediaDirectories([media])
        let link = try FleetLink(config: config, bus: display.bus, options: options)
        return (display, link)
    }

    private func mediaDirectory() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-playlist-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for name in ["a.png", "b.png", "k.png"] {
            _ = FileManager.default.createFile(atPath: root + "/" + name, contents: Data([1]))
        }
        return root
    }

    private func retain(_ client: FleetOperator, _ target: String, _ document: DesiredPlaylist?) throws {
        try client.publish(
            topic: FleetTopics.playlist(site: "test", target: target),
            payload: document.map { Array($0.document.serialized.utf8) } ?? [], retain: true)
    }

    private func retainRaw(_ client: FleetOperator, _ target: String, _ payload: String) throws {
        try client.publish(
            topic: FleetTopics.playlist(site: "test", target: target), payload: Array(payload.utf8), retain: true)
    }

    /// The source of the first item each screen plays.
    private func sources(_ display: FakeDisplay) -> [String: String] {
        display.playlists.compactMapValues { message in
            if case .setPlaylist(_, let playlist) = message { return playlist.items.first?.source }
            return nil
        }
    }

    private func statusPlaylist(_ received: Received, kiosk: String = "k1") -> [String: JSONValue]? {
        guard let text = received.last(FleetTopics.status(site: "test", kiosk: kiosk)),
            case .object(let status)? = try? JSONValue.parse(Array(text.utf8))
        else { return nil }
        return status["fleetPlaylist"]?.objectValue
    }

    @Test func aGroupPlaylistRetainedBeforeTheKioskConnectsIsAppliedAndWithdrawingItClears() throws {
        let media = try mediaDirectory()
        defer { try? FileManager.default.removeItem(atPath: media) }
        let broker = try MosquittoBroker()
        let client = try makeOperator(broker)
        let received = Received(client)
        let document = DesiredPlaylist(
            items: [DesiredPlaylist.item(source: media + "/a.png", seconds: 20)], fit: "cover", epoch: 1_700_000_000,
            screens: .allExternal)
        try retain(client, "g1", document)
        let (display, link) = try playlistKiosk(broker, media: media)
        defer { link.stop() }
        try waitUntil(timeout: 10, "both external screens play it (\(display.playlists))") {
            sources(display) == ["HDMI-A-1": media + "/a.png", "HDMI-A-2": media + "/a.png"]
        }
        guard case .setPlaylist(_, let playlist)? = display.playlists["HDMI-A-1"] else {
            Issue.record("no playlist.set")
            return
        }
        #expect(playlist.epoch == 1_700_000_000 && playlist.fit.rawValue == "cover")
        #expect(playlist.items.map(\.seconds) == [20])
        try waitForCounters(link, "two sets counted") { $0["playlistSets"] == 2 }
        // The retained status says which document is in force.
        try received.wait("the document in the status") { _ in
            statusPlaylist(received)?["screens"]?.serialized == #"["HDMI-A-1","HDMI-A-2"]"#
        }
        let inForce = try #require(statusPlaylist(received))
        #expect(inForce["topic"] == .string("multiscreen/test/g1/playlist"))
        #expect(inForce["digest"] == .string(DesiredPlaylist.digest(of: Array(document.document.serialized.utf8))))
        #expect(inForce["epoch"] == .number(1_700_000_000))
        // A screen plugged in later is given it at the next status.
        display.screens.withLock { $0.append(("DP-3", "external")) }
        try client.publish(
            topic: FleetTopics.command(site: "test", target: "k1"), payload: FleetOperator.request(.status, id: "s"))
        try waitUntil(timeout: 10, "DP-3 plays it too") { sources(display)["DP-3"] == media + "/a.png" }
        // Withdrawn: every screen it set is cleared.
        try retain(client, "g1", nil)
        try waitUntil(timeout: 10, "cleared (\(display.playlists))") { display.playlists.isEmpty }
        try waitForCounters(link, "three clears") { $0["playlistClears"] == 3 }
        #expect(link.counters["playlistMalformed"] == 0)
        try received.wait("no document in force in the status") { _ in
            received.last("multiscreen/test/k1/status")?.contains(#""fleetPlaylist":null"#) == true
        }
    }

    @Test func theKiosksOwnPlaylistBeatsItsGroupsAndWithdrawingItFallsBack() throws {
        let media = try mediaDirectory()
        defer { try? FileManager.default.removeItem(atPath: media) }
        let broker = try MosquittoBroker()
        let client = try makeOperator(broker)
        let group = DesiredPlaylist(
            items: [DesiredPlaylist.item(source: media + "/a.png", seconds: 10)], screens: .allExternal)
        let own = DesiredPlaylist(
            items: [DesiredPlaylist.item(source: media + "/k.png", seconds: 10)], screens: .named(["HDMI-A-2"]))
        let site = DesiredPlaylist(
            items: [DesiredPlaylist.item(source: "https://example.org/site", seconds: 10)], screens: .allExternal)
        try retain(client, "all", site)
        try retain(client, "g1", group)
        try retain(client, "k1", own)
        let (display, link) = try playlistKiosk(broker, media: media)
        defer { link.stop() }
        try waitUntil(timeout: 10, "the kiosk's own on HDMI-A-2 only (\(display.playlists))") {
            sources(display) == ["HDMI-A-2": media + "/k.png"]
        }
        // The group's arriving again (republished) while the kiosk's is in force changes nothing.
        try retain(client, "g1", group)
        try retain(client, "k1", nil)
        try waitUntil(timeout: 10, "the group's on both (\(display.playlists))") {
            sources(display) == ["HDMI-A-1": media + "/a.png", "HDMI-A-2": media + "/a.png"]
        }
        try retain(client, "g1", nil)
        try waitUntil(timeout: 10, "the site's on both (\(display.playlists))") {
            sources(display) == ["HDMI-A-1": "https://example.org/site", "HDMI-A-2": "https://example.org/site"]
        }
        // Only what each document in force asked: one set, then two, then two.
        try waitForCounters(link, "five sets") { $0["playlistSets"] == 5 }
        #expect(link.counters["playlistClears"] == 0)
    }

    /// The display keeps its playlists across a restart of the link (as the product restores them); a document
    /// withdrawn meanwhile clears the screens it gave, which the new link learns from the retained status.
    @Test func aDocumentWithdrawnWhileTheKioskWasStoppedClearsItsScreensWhenItIsBack() throws {
        let media = try mediaDirectory()
        defer { try? FileManager.default.removeItem(atPath: media) }
        let broker = try MosquittoBroker()
        let client = try makeOperator(broker)
        let received = Received(client)
        let (display, first) = try playlistKiosk(broker, media: media)
        try retain(
            client, "g1",
            DesiredPlaylist(items: [DesiredPlaylist.item(source: media + "/a.png", seconds: 10)], screens: .allExternal)
        )
        try received.wait("the retained status naming both screens") { _ in
            statusPlaylist(received)?["screens"]?.serialized == #"["HDMI-A-1","HDMI-A-2"]"#
        }
        first.stop()
        try retain(client, "g1", nil)
        #expect(display.playlists.count == 2)
        var config = try kioskConfig(broker, kiosk: "k1", groups: ["g1"])
        config.allow = ["playlist.*", "status"]
        config.media = try MediaDirectories([media])
        let second = try FleetLink(config: config, bus: display.bus, options: testOptions())
        defer { second.stop() }
        try waitUntil(timeout: 10, "both cleared (\(display.playlists))") { display.playlists.isEmpty }
        try waitForCounters(second, "two clears, no set") { $0["playlistClears"] == 2 && $0["playlistSets"] == 0 }
    }

    @Test func aMalformedOrForbiddenDocumentIsRefusedCountedAndTheScreensGoOn() throws {
        let media = try mediaDirectory()
        defer { try? FileManager.default.removeItem(atPath: media) }
        let broker = try MosquittoBroker()
        let client = try makeOperator(broker)
        let log = LogRecorder()
        var options = testOptions()
        options.logger = log.logger()
        let (display, link) = try playlistKiosk(broker, media: media, options: options)
        defer { link.stop() }
        try waitForCounters(link, "connected") { $0["connected"] == 1 }
        let good = DesiredPlaylist(
            items: [DesiredPlaylist.item(source: media + "/a.png", seconds: 10)], screens: .named(["HDMI-A-1"]))
        try retain(client, "k1", good)
        try waitUntil(timeout: 10, "HDMI-A-1 plays it") { sources(display) == ["HDMI-A-1": media + "/a.png"] }
        let malformed = [
            String(repeating: " ", count: MessageCodec.maximumRequestBytes + 1), "not json",
            #"{"items": [], "screens": "all-external"}"#, #"{"items": [{"source": "/x"}], "screens": []}"#,
            #"{"items": [{"source": "https://example.org", "seconds": 5}], "screens": "all"}"#,
            #"{"items": [{"source": "https://example.org", "seconds": 5}], "screens": "all-external", "x": 1}"#,
        ]
        for payload in malformed { try retainRaw(client, "k1", payload) }
        // Outside [fleet] media: the gate's refusal, as for a command.
        try retainRaw(
            client, "k1", #"{"items": [{"source": "/etc/passwd", "seconds": 5}], "screens": "all-external"}"#)
        try waitForCounters(link, "six malformed, one not allowed") {
            $0["playlistMalformed"] == malformed.count && $0["playlistNotAllowed"] == 1
        }
        // The screen plays what it played; nothing else was set or cleared.
        #expect(sources(display) == ["HDMI-A-1": media + "/a.png"])
        #expect(link.counters["playlistSets"] == 1 && link.counters["playlistClears"] == 0)
        #expect(link.notes["playlistError"]?.contains("/etc/passwd") == true)
        // Precise reasons, the first 5 of a kind logged (the sixth malformed one, an unknown key, is only counted).
        let logged = log.recorded.filter { $0.contains("playlist document on multiscreen/test/k1/playlist refused") }
        #expect(logged.count == 6, "\(logged)")
        #expect(logged.contains { $0.contains("a playlist needs at least one item") })
        #expect(logged.contains { $0.contains("the limit is \(MessageCodec.maximumRequestBytes)") })
        #expect(logged.contains { $0.contains("not a file inside the media directories") })
    }

    /// Without `[fleet] media`, `playlist.set` is never the fleet's, whatever `allow` says: a document is refused.
    @Test func aKioskWithoutMediaDirectoriesRefusesFileItems() throws {
        let broker = try MosquittoBroker()
        let client = try makeOperator(broker)
        let display = try FakeDisplay()
        display.screens.withLock { $0 = [("HDMI-A-1", "external")] }
        var config = try kioskConfig(broker, kiosk: "k1")
        config.allow = ["playlist.*"]
        let link = try FleetLink(config: config, bus: display.bus, options: testOptions())
        defer { link.stop() }
        try retainRaw(
            client, "all", #"{"items": [{"source": "https://example.org", "seconds": 5}], "screens": "all-external"}"#)
        try waitForCounters(link, "refused as not allowed") { $0["playlistNotAllowed"] == 1 }
        #expect(display.playlists.isEmpty)
    }

    /// Proof of play made while the broker is down is held (bounded) and delivered at QoS 1 after it is back; the
    /// events topic keeps its QoS 0 copy for whoever is connected.
    @Test func historyRecordsMadeWhileTheBrokerIsDownArriveAfterItIsBack() throws {
        let broker = try MosquittoBroker()
        var options = testOptions()
        options.outboxLimit = 4
        let display = try FakeDisplay()
        let link = try FleetLink(
            config: try kioskConfig(broker, kiosk: "k1"), bus: display.bus, options: options)
        defer { link.stop() }
        // A collector with a persistent session: the broker keeps what is published for it while it is away too.
        let settings = try kioskConfig(broker, kiosk: "collector")
        var collector = try FleetOperator(settings: settings, clientID: "collector", cleanSession: false)
        try collector.connect()
        try collector.subscribe([FleetTopics.history(site: "test", kiosk: "k1"), "multiscreen/test/k1/events"])
        try waitForCounters(link, "connected") { $0["connected"] == 1 }
        func played(_ index: Int) -> Event {
            Event(
                name: Event.Name.playlistPlayed.rawValue,
                params: [
                    "screen": .string("HDMI-A-2"), "index": .integer(index), "source": .string("/srv/\(index).png"),
                    "start": .number(Double(index)), "end": .number(Double(index + 1)),
                ])
        }
        display.publishLater(played(0))
        var received = Received(collector)
        try received.wait("the first record on both topics") { messages in
            messages.contains { $0.topic == "multiscreen/test/k1/history" }
                && messages.contains { $0.topic == "multiscreen/test/k1/events" }
        }
        try broker.stop()
        try waitForCounters(link, "disconnected") { $0["connected"] == 0 }
        for index in 1...6 { display.publishLater(played(index)) }
        try waitForCounters(link, "six records handed over") { $0["historyPublished"] == 7 }
        let dropped = link.counters["historyDropped"] ?? 0
        #expect(dropped >= 2 && dropped <= 3, "\(link.counters)")  // 4 held, one of them maybe the status
        try broker.start()
        try waitForCounters(link, "reconnected") { $0["connected"] == 1 && $0["outbox"] == 0 }
        collector = try FleetOperator(settings: settings, clientID: "collector", cleanSession: false)
        try collector.connect()
        received = Received(collector)
        try received.wait("the records held while offline") { messages in
            messages.filter { $0.topic == "multiscreen/test/k1/history" }.count == 6 - dropped
        }
        let indexes = received.messages.filter { $0.topic == "multiscreen/test/k1/history" }.compactMap { message in
            (try? JSONValue.parse(message.payload))?.objectValue["params"]?.objectValue["index"]
        }
        #expect(indexes == ((1 + dropped)...6).map { .integer($0) })
        #expect(received.messages.allSatisfy { !$0.retained })
        // Events (QoS 0) made while offline are dropped and counted, as before.
        #expect((link.counters["eventsDropped"] ?? 0) >= 6)
    }
}

/// The document and the precedence rules, without a broker.
@Suite struct PlaylistDesiredStateTests {
    private func document(_ source: String, _ screens: DesiredPlaylist.Screens) -> DesiredPlaylist {
        DesiredPlaylist(items: [DesiredPlaylist.item(source: source, seconds: 10)], screens: screens, digest: source)
    }

    private let topics = FleetTopics(site: "s", kiosk: "k").playlists(groups: ["g1", "g2"])

    @Test func theTopicsAreNamedAsTheCommandTopicsMostSpecificFirst() {
        #expect(
            topics == [
                "multiscreen/s/k/playlist", "multiscreen/s/g1/playlist", "multiscreen/s/g2/playlist",
                "multiscreen/s/all/playlist",
            ])
    }

    @Test func aDocumentRoundTripsAndMalformedOnesSayWhy() throws {
        let original = DesiredPlaylist(
            items: [DesiredPlaylist.item(source: "/srv/a.png", seconds: 2.5)], fit: "cover", epoch: 60,
            screens: .named(["HDMI-A-2"]))
        let bytes = Array(original.document.serialized.utf8)
        let parsed = try #require(try DesiredPlaylist.parse(bytes))
        #expect(parsed.items == original.items && parsed.fit == "cover" && parsed.epoch == 60)
        #expect(parsed.screens == .named(["HDMI-A-2"]))
        #expect(parsed.digest.count == 16)
        #expect(try DesiredPlaylist.parse([]) == nil)
        func reason(_ text: String) -> String {
            do throws(MessageError) {
                _ = try DesiredPlaylist.parse(Array(text.utf8))
                return "accepted"
            } catch { return error.message }
        }
        #expect(reason("[]") == "a playlist document is a JSON object")
        #expect(reason(#"{"screens": "all-external"}"#) == #"a playlist document needs "items", an array"#)
        #expect(
            reason(#"{"items": [], "screens": ["A", 1]}"#) == #""screens" in a playlist document lists screen names"#)
        #expect(reason(#"{"items": [], "epoch": "now", "screens": "all-external"}"#).hasPrefix(#""epoch""#))
    }

    @Test func whatAPreviousRunGaveIsClearedWhenNoDocumentNamesItAnyMore() {
        var state = PlaylistDesiredState(topics: topics)
        let group1 = document("g1", .named(["B"]))
        #expect(state.restored(topic: topics[0], screens: ["A", "B"]) == [])
        #expect(state.received(group1, on: topics[1]) == [])
        #expect(state.screensChanged(external: ["A", "B"]) == [.clear(screen: "A"), .set(screen: "B", group1)])
        // The screens known before the previous run's status arrives: reconciled then.
        var late = PlaylistDesiredState(topics: topics)
        #expect(late.screensChanged(external: ["A"]) == [])
        #expect(late.restored(topic: topics[0], screens: ["A"]) == [.clear(screen: "A")])
    }

    @Test func theMostSpecificWinsAndAWithdrawalFallsBackOrClears() {
        var state = PlaylistDesiredState(topics: topics)
        let site = document("site", .allExternal)
        let group2 = document("g2", .allExternal)
        let group1 = document("g1", .named(["B"]))
        let own = document("own", .named(["A", "Z"]))
        // Nothing before the screens are known.
        #expect(state.received(site, on: topics[3]) == [])
        #expect(state.screensChanged(external: ["A", "B"]) == [.set(screen: "A", site), .set(screen: "B", site)])
        #expect(state.received(group2, on: topics[2]) == [.set(screen: "A", group2), .set(screen: "B", group2)])
        // The first listed group beats the second.
        #expect(state.received(group1, on: topics[1]) == [.clear(screen: "A"), .set(screen: "B", group1)])
        #expect(state.received(own, on: topics[0]) == [.clear(screen: "B"), .set(screen: "A", own)])
        // Less specific ones changing while the kiosk's is in force change nothing.
        #expect(state.received(nil, on: topics[2]) == [])
        #expect(state.received(site, on: topics[3]) == [])
        // The same document again (a reconnect): applied again, idempotent.
        #expect(state.received(own, on: topics[0]) == [.set(screen: "A", own)])
        // A named screen plugged in later.
        #expect(state.screensChanged(external: ["A", "B", "Z"]) == [.set(screen: "Z", own)])
        #expect(
            state.received(nil, on: topics[0]) == [.clear(screen: "A"), .clear(screen: "Z"), .set(screen: "B", group1)])
        #expect(state.received(nil, on: topics[1]) == (["A", "B", "Z"].map { .set(screen: $0, site) }))
        #expect(state.received(nil, on: topics[3]) == (["A", "B", "Z"].map { .clear(screen: $0) }))
        #expect(state.inForce == nil && state.applied.isEmpty)
        #expect(state.received(own, on: "multiscreen/s/other/playlist") == [])
    }
}
