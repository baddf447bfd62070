import CompositorHarness
import Foundation
import FrameTiming
import Logging
import Messaging
import Outputs
import Screens
import Testing

@testable import Product

/// Two outputs as a compositor describes them: HEADLESS-1 (the controller by default) and HEADLESS-2.
private func output(_ registryName: UInt32, _ name: String) -> OutputInfo {
    var info = OutputInfo(registryName: registryName)
    info.name = name
    info.make = "ACME"
    info.model = "Panel \(registryName)"
    info.description = "ACME Panel \(registryName) (\(name))"
    info.modeWidth = 640
    info.modeHeight = 360
    info.refreshMilliHertz = 60_000
    return info
}

private let first = output(1, "HEADLESS-1")
private let second = output(2, "HEADLESS-2")

/// A product controller with a state file in a private directory, removed afterwards.
private final class Fixture {
    let directory: String
    var product: ProductController

    init(outputs: [OutputInfo] = [first, second], config: RoleConfig = RoleConfig()) {
        var template = Array("/tmp/product-test-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        product = ProductController(
            model: ScreenModel(config: config), store: StateStore(path: directory + "/state.json"))
        _ = product.outputsChanged(outputs)
        product.saveIfChanged()
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    var statePath: String { directory + "/state.json" }

    func execute(_ message: Message, vitals: Vitals = Vitals()) -> Outcome {
        product.execute(message) { vitals }
    }
}

private func errorCode(_ outcome: Outcome) -> MessageError.Code? {
    if case .error(let error)? = outcome.reply { return error.code }
    return nil
}

@Suite struct ProductControllerRequestTests {
    @Test func sendToEveryScreen() {
        let fixture = Fixture()
        let outcome = fixture.execute(.send(text: "hello", screen: nil))
        #expect(outcome.reply == .sent(id: 1, screen: nil))
        #expect(outcome.events == [.messageReceived(id: 1, text: "hello", screen: nil)])
        #expect(outcome.changes.message?.text == "hello")
        #expect(outcome.changes.message?.screen == nil)
        #expect(outcome.changes.controllerUI)
        #expect(!outcome.changes.assignment)
        #expect(outcome.changes.state, "a logged message is saved")
        #expect(fixture.product.hasUnsavedState)
        #expect(outcome.toSend == nil)
    }

    @Test func sendToOneScreenAndToAnUnknownOne() {
        let fixture = Fixture()
        let sent = fixture.execute(.send(text: "only two", screen: "HEADLESS-2"))
        #expect(sent.reply == .sent(id: 1, screen: "HEADLESS-2"))
        #expect(sent.events == [.messageReceived(id: 1, text: "only two", screen: "HEADLESS-2")])
        #expect(fixture.product.model.log.messages(for: "HEADLESS-1").isEmpty)

        let refused = fixture.execute(.send(text: "lost?", screen: "DP-9"))
        #expect(
            refused.reply
                == .error(
                    MessageError(.invalidParams, "unknown screen 'DP-9' (known: HEADLESS-1, HEADLESS-2)")))
        #expect(refused.events.isEmpty)
        #expect(refused.changes.isEmpty, "a refusal changes nothing")
        #expect(fixture.product.model.log.count == 1)
    }

    @Test func openAndCloseACard() {
        let fixture = Fixture()
        let opened = fixture.execute(.openCard(screen: "HEADLESS-2", text: "Gate A"))
        #expect(opened.reply == .cardOpened(id: 1, screen: "HEADLESS-2"))
        #expect(
            opened.events == [
                .cardOpened(id: 1, screen: "HEADLESS-2", text: "Gate A"),
                .contentChanged(screen: "HEADLESS-2", from: "messages", to: "card"),
            ])
        #expect(opened.changes.screens == ["HEADLESS-2"])
        #expect(opened.changes.assignment, "the screen switched to card mode")
        #expect(opened.changes.state)
        #expect(fixture.product.kind(of: 2) == .external(.card))

        // A second card on a screen already in card mode reassigns nothing: the switch above is not told again.
        let second = fixture.execute(.openCard(screen: "HEADLESS-2", text: "Gate B"))
        #expect(second.events == [.cardOpened(id: 2, screen: "HEADLESS-2", text: "Gate B")])
        #expect(!second.changes.assignment)

        let closed = fixture.execute(.closeCard(screen: "HEADLESS-2"))
        #expect(closed.reply == .cardClosed(id: 2, screen: "HEADLESS-2"))
        #expect(closed.events == [.cardClosed(id: 2, screen: "HEADLESS-2")])
        #expect(closed.changes.screens == ["HEADLESS-2"])
        #expect(closed.changes.state)

        let again = fixture.execute(.closeCard(screen: "HEADLESS-2"))
        #expect(again.reply == .error(MessageError(.refused, "no card is open on HEADLESS-2")))
        #expect(again.events.isEmpty && !again.changes.state)
        #expect(errorCode(fixture.execute(.openCard(screen: "nowhere", text: "x"))) == .invalidParams)
    }

    @Test func setRole() {
        let fixture = Fixture()
        #expect(fixture.product.model.assignment.controller == 1)
        let moved = fixture.execute(.setRole(screen: "HEADLESS-2", role: "controller"))
        #expect(moved.reply == .roleSet(screen: "HEADLESS-2", role: "controller"))
        #expect(
            moved.events == [
                .roleChanged(screen: "HEADLESS-1", from: "controller", to: "external"),
                .roleChanged(screen: "HEADLESS-2", from: "external", to: "controller"),
                .controllerMoved(from: "HEADLESS-1", to: "HEADLESS-2", standIn: false),
                .contentChanged(screen: "HEADLESS-1", from: nil, to: "messages"),
                .contentChanged(screen: "HEADLESS-2", from: "messages", to: nil),
            ])
        #expect(moved.changes.assignment && moved.changes.state)
        #expect(fixture.product.kind(of: 2) == .controller)
        #expect(fixture.product.kind(of: 1) == .external(.messages))

        let bad = fixture.execute(.setRole(screen: "HEADLESS-1", role: "Bad Role"))
        #expect(errorCode(bad) == .invalidParams)
        #expect(bad.events.isEmpty && !bad.changes.state)
        #expect(errorCode(fixture.execute(.setRole(screen: "DP-9", role: "external"))) == .invalidParams)
    }

    @Test func statusReportsScreensVitalsAndSources() throws {
        let fixture = Fixture()
        _ = fixture.execute(.send(text: "hi", screen: nil))
        var frames = FrameStatistics()
        frames.recordCommit(withFeedback: true)
        frames.recordPresented(latencyNanoseconds: 2_000_000)
        var vitals = Vitals(
            frames: [2: frames], bus: RingStatistics(enqueued: 3, drained: 3), wakeups: 1, applied: 3,
            sources: ["control": ["requests": 7]])
        vitals.memory = ["heapInUseBytes": 1 << 20, "heapFreeBytes": 4096]
        let outcome = fixture.execute(.status, vitals: vitals)
        guard case .result(.status, let result)? = outcome.reply else {
            Issue.record("no status result: \(String(describing: outcome.reply))")
            return
        }
        #expect(result["controller"] == .string("HEADLESS-1"))
        guard case .array(let screens)? = result["screens"], screens.count == 2 else {
            Issue.record("two screens expected")
            return
        }
        #expect(screens[0].objectValue["role"] == .string("controller"))
        #expect(screens[0].objectValue["frames"] == nil, "no window yet: no frame statistics")
        #expect(screens[1].objectValue["role"] == .string("external"))
        #expect(screens[1].objectValue["content"] == .string("messages"))
        #expect(screens[1].objectValue["frames"]?.objectValue["presented"] == .integer(1))
        #expect(screens[1].objectValue["frames"]?.objectValue["latencyMedianMs"] == .number(2))
        #expect(result["bus"]?.objectValue["applied"] == .integer(3))
        #expect(result["control"] == .object(["requests": .integer(7)]))
        #expect(result["memory"] == .object(["heapInUseBytes": .integer(1 << 20), "heapFreeBytes": .integer(4096)]))
        guard case .array(let messages)? = result["messages"] else { return }
        #expect(messages.first?.objectValue["text"] == .string("hi"))
        #expect(outcome.events.isEmpty && outcome.changes.isEmpty)
    }

    @Test func statusReportsTheLastMinutesLatencyPerScreen() throws {
        let fixture = Fixture()
        var latency = ScreenLatency()
        latency.clock = "CLOCK_MONOTONIC_RAW"
        let minute: UInt64 = 60_000_000_000
        // One message shown two minutes ago (out of the window), then 1…100 ms over the last minute.
        latency.record(
            FrameLatencyReport(
                frame: 1, source: .presented, committedAt: 0, shownAt: 10 * minute + 999_000_000,
                messages: [PendingMessage(id: 1, enqueuedAt: 10 * minute, drainedAt: 10 * minute)]),
            missedVblanks: 0)
        for i in 1...100 {
            let at = 12 * minute + UInt64(i) * 1_000_000_000 / 2
            latency.record(
                FrameLatencyReport(
                    frame: UInt64(i + 1), source: .presented, committedAt: 0, shownAt: at,
                    messages: [PendingMessage(id: UInt64(i + 1), enqueuedAt: at - UInt64(i) * 1_000_000, drainedAt: 0)]),
                missedVblanks: 4)
        }
        let lost = FrameLatencyReport(
            frame: 0, source: .lost, committedAt: 0, shownAt: nil,
            messages: [PendingMessage(id: 200, enqueuedAt: 0, drainedAt: 0)])
        latency.record(lost, missedVblanks: 4)
        let outcome = fixture.execute(
            .status, vitals: Vitals(latency: [2: latency], now: 12 * minute + 50 * 1_000_000_000))
        guard case .result(.status, let result)? = outcome.reply, case .array(let screens)? = result["screens"] else {
            Issue.record("no status result")
            return
        }
        #expect(screens[0].objectValue["latency"] == nil, "no window yet: no latency")
        let figures = try #require(screens[1].objectValue["latency"]?.objectValue)
        #expect(figures["source"] == .string("presented"))
        #expect(figures["clock"] == .string("CLOCK_MONOTONIC_RAW"))
        #expect(
            figures["lastMinute"] == .object(["messages": .integer(100), "p50Ms": .number(50), "p99Ms": .number(99)]))
        #expect(figures["messagesPresented"] == .integer(101))
        #expect(figures["messagesLost"] == .integer(1))
        #expect(figures["missedVblanks"] == .integer(4))
        #expect(result["pacing"] == .string("frame") && result["flash"] == .bool(false))
    }

    @Test func frameShownEventCarriesEveryStamp() {
        var report = FrameLatencyReport(
            frame: 9, source: .presented, committedAt: 3_000, shownAt: 20_000,
            messages: [PendingMessage(id: 4, enqueuedAt: 1_000, drainedAt: 2_000)])
        report.sequence = 77
        report.refreshNanoseconds = 16_666_666
        report.flags = [.vsync, .hardwareClock]
        let event = Event.frameShown(screen: "HDMI-A-1", report, clock: "CLOCK_MONOTONIC")
        #expect(event.name == "frame.shown")
        #expect(event.params["shownAt"] == .integer(20_000) && event.params["committedAt"] == .integer(3_000))
        #expect(event.params["flags"] == .array([.string("vsync"), .string("hw_clock")]))
        #expect(event.params["seq"] == .integer(77) && event.params["source"] == .string("presented"))
        #expect(
            event.params["messages"]
                == .array([.object(["id": .integer(4), "enqueuedAt": .integer(1_000), "drainedAt": .integer(2_000)])]))
        var lost = report
        lost.source = .lost
        lost.shownAt = nil
        #expect(Event.frameShown(screen: "x", lost, clock: "c").params["shownAt"] == .null)
    }

    @Test func outputsListsEveryOutputInOrder() {
        let fixture = Fixture(outputs: [second, first])
        let outcome = fixture.execute(.outputs)
        guard case .result(.outputs, let result)? = outcome.reply, case .array(let list)? = result["outputs"] else {
            Issue.record("no outputs result")
            return
        }
        #expect(list.map { $0.objectValue["name"] } == [.string("HEADLESS-1"), .string("HEADLESS-2")])
        #expect(list[0].objectValue["width"] == .integer(640))
        #expect(outcome.changes.isEmpty)
    }
}

@Suite struct ProductControllerOutputTests {
    @Test func outputsAppearingAreAssignedAndEvented() {
        var product = ProductController(model: ScreenModel(), store: StateStore(path: "/nonexistent/state.json"))
        let outcome = product.outputsChanged([first, second])
        #expect(
            outcome.events == [
                .roleChanged(screen: "HEADLESS-1", from: nil, to: "controller"),
                .roleChanged(screen: "HEADLESS-2", from: nil, to: "external"),
                .controllerMoved(from: nil, to: "HEADLESS-1", standIn: false),
                .contentChanged(screen: "HEADLESS-2", from: nil, to: "messages"),
            ])
        #expect(outcome.changes.assignment && outcome.changes.controllerUI)
        #expect(outcome.reply == nil)
    }

    @Test func aCardWhoseScreenGoesAwayReturns() {
        let fixture = Fixture()
        _ = fixture.execute(.openCard(screen: "HEADLESS-2", text: "Gate A"))
        fixture.product.saveIfChanged()
        let outcome = fixture.product.outputsChanged([first])
        #expect(outcome.events.first == .cardReturned(id: 1))
        #expect(outcome.events.contains(.roleChanged(screen: "HEADLESS-2", from: "external", to: nil)))
        #expect(outcome.changes.state)
        #expect(fixture.product.model.cards.waiting.map(\.id) == [1])
    }

    @Test func nothingChangedNothingToSave() {
        let fixture = Fixture()
        let outcome = fixture.product.outputsChanged([first, second])
        #expect(outcome.events.isEmpty)
        #expect(!outcome.changes.state && !outcome.changes.assignment)
        #expect(!fixture.product.hasUnsavedState)
    }
}

@Suite struct ProductControllerPanelTests {
    @Test func typingAndEnterAsksToSendThroughTheBus() {
        let fixture = Fixture()
        for character in "hi" { _ = fixture.product.handle(key: .text(String(character))) }
        let outcome = fixture.product.handle(key: .enter)
        #expect(outcome.toSend == .send(text: "hi", screen: nil))
        #expect(outcome.reply == nil && outcome.events.isEmpty)
        #expect(outcome.changes.controllerUI)
        #expect(!outcome.changes.state, "nothing is logged until the message comes back through the bus")
        #expect(fixture.product.model.log.isEmpty)
    }

    @Test func enterOnARowCyclesItsContentMode() {
        let fixture = Fixture()
        _ = fixture.product.handle(key: .down)  // the text field → the first row (the controller: not cycled)
        _ = fixture.product.handle(key: .down)  // HEADLESS-2
        let outcome = fixture.product.handle(key: .enter)
        #expect(outcome.events == [.contentChanged(screen: "HEADLESS-2", from: "messages", to: "mirror")])
        #expect(outcome.changes.assignment && outcome.changes.state)
        #expect(fixture.product.kind(of: 2) == .external(.mirror))
        let onController = fixture.product.press(.screen(0))
        #expect(onController.events.isEmpty && !onController.changes.state)
    }
}

@Suite struct ProductControllerStateTests {
    @Test func saveWritesOnlyWhatChanged() throws {
        let fixture = Fixture()
        let written = try? FileManager.default.attributesOfItem(atPath: fixture.statePath)[.modificationDate] as? Date
        _ = fixture.execute(.status)
        fixture.product.saveIfChanged()
        #expect(
            (try? FileManager.default.attributesOfItem(atPath: fixture.statePath)[.modificationDate] as? Date)
                == written, "status changes nothing: no write")
        _ = fixture.execute(.send(text: "keep me", screen: nil))
        #expect(fixture.product.hasUnsavedState)
        fixture.product.saveIfChanged()
        #expect(!fixture.product.hasUnsavedState)
        let loaded = StateStore(path: fixture.statePath).load()
        #expect(loaded.state.messages.map(\.text) == ["keep me"])
    }

    /// The display thread writes on another thread: a change made while that write is under way keeps the state
    /// unsaved, and a failed write keeps it unsaved too and is counted.
    @Test func aChangeDuringAWriteKeepsTheStateUnsaved() throws {
        let fixture = Fixture()
        _ = fixture.execute(.send(text: "first", screen: nil))
        let (snapshot, change) = try #require(fixture.product.stateToWrite())
        #expect(snapshot.messages.map(\.text) == ["first"])
        _ = fixture.execute(.send(text: "second", screen: nil))
        let written = fixture.product.saves.written
        fixture.product.stateWritten(change, failure: nil)
        #expect(fixture.product.hasUnsavedState, "the write did not include the second message")
        #expect(fixture.product.saves.written == written + 1)

        let (latest, latestChange) = try #require(fixture.product.stateToWrite())
        #expect(latest.messages.map(\.text) == ["first", "second"])
        let failure = StateStoreError(path: fixture.statePath, operation: "fsync", reason: "Input/output error")
        fixture.product.stateWritten(latestChange, failure: failure)
        #expect(fixture.product.hasUnsavedState)
        #expect(fixture.product.saves.lastError == failure.description)
        fixture.product.stateWritten(latestChange, failure: nil)
        #expect(!fixture.product.hasUnsavedState)
        #expect(fixture.product.saves.lastError == nil)
        #expect(fixture.product.stateToWrite() == nil)
    }

    @Test func logLinesCarryNoControlCharacters() {
        #expect("a\nb\u{1b}[31m\u{2028}".logSafe == "a\\u{a}b\\u{1b}[31m\\u{2028}")
        #expect("héllo 안녕".logSafe == "héllo 안녕")
    }
}

@Suite struct ProductControllerControlTests {
    @Test func emptyMessagesAndMessagesForTheControllerAreRefused() {
        let fixture = Fixture()
        for text in ["", "   ", "\n\t"] {
            let outcome = fixture.execute(.send(text: text, screen: nil))
            #expect(
                outcome.reply
                    == .error(MessageError(.invalidParams, "\"text\" is empty or only whitespace: nothing to show")))
        }
        let toController = fixture.execute(.send(text: "hi", screen: "HEADLESS-1"))
        #expect(
            toController.reply
                == .error(
                    MessageError(
                        .refused,
                        "HEADLESS-1 shows the controller UI, not messages: name an external screen, or none for all")))
        // A card always names its screen, so the hint does not offer "none".
        #expect(
            fixture.execute(.openCard(screen: "HEADLESS-1", text: "x")).reply
                == .error(
                    MessageError(.refused, "HEADLESS-1 shows the controller UI, not cards: name an external screen")))
        #expect(fixture.product.model.log.isEmpty && fixture.product.model.cards.cards.isEmpty)
    }

    @Test func contentSet() {
        let fixture = Fixture()
        let outcome = fixture.execute(.setContent(screen: "HEADLESS-2", mode: "blank"))
        #expect(outcome.reply == .contentSet(screen: "HEADLESS-2", mode: "blank"))
        #expect(outcome.events == [.contentChanged(screen: "HEADLESS-2", from: "messages", to: "blank")])
        #expect(outcome.changes.assignment && outcome.changes.state)
        #expect(fixture.product.kind(of: 2) == .external(.blank))
        let unknown = fixture.execute(.setContent(screen: "HEADLESS-2", mode: "sparkles"))
        #expect(
            unknown.reply
                == .error(
                    MessageError(
                        .invalidParams,
                        "unknown content mode \"sparkles\" (known: messages, mirror, card, blank, web, image, video, playlist)"
                    )
                ))
        #expect(errorCode(fixture.execute(.setContent(screen: "DP-9", mode: "blank"))) == .invalidParams)
    }

    @Test func unknownRolesAndLosingTheControllerAreRefused() {
        let config = RoleConfig(rules: [
            RoleConfig.Rule(match: OutputMatch(name: "DP-*"), role: ScreenRole(rawValue: "rear-seat"))
        ])
        let fixture = Fixture(config: config)
        let unknown = fixture.execute(.setRole(screen: "HEADLESS-2", role: "mirror"))
        #expect(
            unknown.reply
                == .error(
                    MessageError(
                        .invalidParams,
                        "unknown role \"mirror\" (known: controller, external, rear-seat; other roles are declared "
                            + "by naming them in a config rule)")))
        #expect(fixture.execute(.setRole(screen: "HEADLESS-2", role: "rear-seat")).reply != nil)
        #expect(fixture.product.model.assignment.roles[2] == ScreenRole(rawValue: "rear-seat"))

        let orphaning = fixture.execute(.setRole(screen: "HEADLESS-1", role: "external"))
        #expect(errorCode(orphaning) == .refused, "no screen would show the controller UI")
        #expect(fixture.product.model.assignment.controller == 1, "refused: nothing changed")
        let forced = fixture.execute(.setRole(screen: "HEADLESS-1", role: "external", force: true))
        #expect(forced.reply == .roleSet(screen: "HEADLESS-1", role: "external"))
        #expect(fixture.product.model.assignment.controller == nil)
        #expect(forced.events.contains(.controllerMoved(from: "HEADLESS-1", to: nil, standIn: false)))
    }

    @Test func roleResetForgetsWhatWasSetAtRunTime() {
        let fixture = Fixture()
        _ = fixture.execute(.setRole(screen: "HEADLESS-2", role: "controller"))
        _ = fixture.execute(.setContent(screen: "HEADLESS-1", mode: "mirror"))
        #expect(fixture.product.model.assignment.controller == 2)
        let one = fixture.execute(.resetRole(screen: "HEADLESS-1"))
        #expect(one.reply == .roleReset(screen: "HEADLESS-1"))
        #expect(one.changes.state)
        let all = fixture.execute(.resetRole(screen: nil))
        #expect(all.reply == .roleReset(screen: nil))
        #expect(fixture.product.model.roles.memory == ScreenMemory())
        #expect(fixture.product.model.assignment.controller == 1, "the default again: the first output")
        #expect(all.events.contains(.controllerMoved(from: "HEADLESS-2", to: "HEADLESS-1", standIn: false)))
        #expect(errorCode(fixture.execute(.resetRole(screen: "DP-9"))) == .invalidParams)
    }

    @Test func messagesClearOneScreenOrAll() {
        let fixture = Fixture(outputs: [first, second, output(3, "HEADLESS-3")])
        _ = fixture.execute(.send(text: "for all", screen: nil))
        _ = fixture.execute(.send(text: "for two", screen: "HEADLESS-2"))
        _ = fixture.execute(.send(text: "for three", screen: "HEADLESS-3"))
        let cleared = fixture.execute(.clearMessages(screen: "HEADLESS-2"))
        #expect(cleared.reply == .messagesCleared(screen: "HEADLESS-2", count: 2))
        #expect(cleared.events == [.messagesCleared(screen: "HEADLESS-2", count: 2)])
        #expect(cleared.changes.everyScreen && cleared.changes.state)
        #expect(fixture.product.model.log.messages(for: "HEADLESS-2").isEmpty)
        #expect(fixture.product.model.log.messages(for: "HEADLESS-3").map(\.text) == ["for three", "for all"])
        let all = fixture.execute(.clearMessages(screen: nil))
        #expect(all.reply == .messagesCleared(screen: nil, count: 2))
        #expect(fixture.product.model.log.isEmpty)
    }

    @Test func messagesWithATTLExpire() {
        let fixture = Fixture()
        _ = fixture.execute(.send(text: "brief", screen: nil, ttl: 5))
        _ = fixture.execute(.send(text: "stays", screen: nil))
        let expiry = fixture.product.nextExpiry
        #expect(expiry != nil)
        #expect(fixture.product.expireMessages(now: Date()).events.isEmpty, "not yet")
        let outcome = fixture.product.expireMessages(now: expiry!)
        #expect(outcome.events == [.messageExpired(id: 1)])
        #expect(outcome.changes.everyScreen && outcome.changes.state)
        #expect(fixture.product.model.log.newestFirst.map(\.text) == ["stays"])
        #expect(fixture.product.nextExpiry == nil)
    }
}

@Suite struct ProductControllerCardTests {
    @Test func aWaitingCardIsReopenedElsewhereOrDiscarded() {
        let fixture = Fixture(outputs: [first, second, output(3, "HEADLESS-3")])
        _ = fixture.execute(.openCard(screen: "HEADLESS-2", text: "Gate A"))
        _ = fixture.product.outputsChanged([first, output(3, "HEADLESS-3")])
        #expect(fixture.product.model.cards.waiting.map(\.id) == [1])
        let reopened = fixture.execute(.reopenCard(id: 1, screen: "HEADLESS-3"))
        #expect(reopened.reply == .cardReopened(id: 1, screen: "HEADLESS-3"))
        #expect(reopened.events.first == .cardOpened(id: 1, screen: "HEADLESS-3", text: "Gate A"))
        #expect(reopened.changes.screens == ["HEADLESS-3"] && reopened.changes.state)
        #expect(fixture.product.kind(of: 3) == .external(.card))
        #expect(fixture.product.model.cards.waiting.isEmpty)
        #expect(errorCode(fixture.execute(.reopenCard(id: 9, screen: "HEADLESS-3"))) == .invalidParams)
        #expect(errorCode(fixture.execute(.reopenCard(id: 1, screen: "HEADLESS-1"))) == .refused)

        let discarded = fixture.execute(.discardCard(id: 1))
        #expect(discarded.reply == .cardDiscarded(id: 1))
        #expect(discarded.events == [.cardDiscarded(id: 1)])
        #expect(discarded.changes.screens == ["HEADLESS-3"] && discarded.changes.state)
        #expect(fixture.product.model.cards.cards.isEmpty)
        #expect(
            fixture.execute(.discardCard(id: 1)).reply == .error(MessageError(.invalidParams, "no card with id 1")))
    }

    @Test func outputChangesAloneDoNotRewriteTheStateFile() {
        let fixture = Fixture()
        let outcome = fixture.product.outputsChanged([first, second, output(3, "HEADLESS-3")])
        #expect(outcome.changes.assignment)
        #expect(!outcome.changes.state, "nothing saved changed: roles set at run time are untouched")
        #expect(!fixture.product.hasUnsavedState)
    }
}

@Suite struct ProductControllerReloadTests {
    @Test func aReloadedConfigReassignsRolesAndAThemeChangeRedrawsEveryScreen() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reload-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/config.toml"
        try "".write(toFile: config, atomically: true, encoding: .utf8)
        var product = ProductController.load(
            configPath: config, statePath: directory + "/state.json", logger: Logger(label: "test"))
        _ = product.outputsChanged([first, second])
        try "[theme]\nfont-scale = 2\n".write(toFile: config, atomically: true, encoding: .utf8)
        let themed = product.reloadConfig()
        #expect(themed.changes.everyScreen, "a new look redraws every screen")
        #expect(themed.events.isEmpty)
        try "[[rule]]\nmatch = { name = \"HEADLESS-2\" }\nrole = \"controller\"\n[theme]\nfont-scale = 2\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        let moved = product.reloadConfig()
        #expect(moved.events.contains(.controllerMoved(from: "HEADLESS-1", to: "HEADLESS-2", standIn: false)))
        #expect(!moved.changes.everyScreen, "same theme")
        try "[[rule]\nbroken".write(toFile: config, atomically: true, encoding: .utf8)
        #expect(product.reloadConfig().changes.isEmpty, "a broken config changes nothing")
        #expect(product.model.assignment.controller == 2)
    }

    @Test func theControllerLayoutFollowsTheFocusedRow() {
        let fixture = Fixture(outputs: (1...12).map { output($0, "HEADLESS-\($0)") })
        for _ in 0..<12 { _ = fixture.product.handle(key: .down) }
        let layout = fixture.product.controllerLayout(width: 640, height: 360)
        #expect(
            layout == ControllerLayout(width: 640, height: 360, rowCount: 12, focusedRow: 11, waitingCardCount: 0))
    }
}

@Suite struct ProductControllerRemoteOfferTests {
    /// An offer redraws the screens that show it (the display thread knows which), not every screen nor the
    /// controller UI; the same offer again redraws nothing.
    @Test func offerIsKeptAndRedrawsOnlyWhereItShows() {
        let fixture = Fixture()
        let outcome = fixture.execute(.remoteOffer(link: "http://k/?code=t", code: "ABCD2345", locked: false))
        #expect(outcome.reply == .result(method: .remoteOffer, result: [:]))
        #expect(outcome.changes.remoteOffer)
        #expect(!outcome.changes.everyScreen && !outcome.changes.controllerUI && outcome.changes.screens.isEmpty)
        #expect(!outcome.changes.state)
        #expect(fixture.product.remoteOffer == RemoteOffer(link: "http://k/?code=t", code: "ABCD2345"))
        _ = fixture.execute(.remoteOffer(link: "", code: "", locked: true))
        #expect(fixture.product.remoteOffer == RemoteOffer(link: "", code: "", locked: true))
        #expect(fixture.execute(.remoteOffer(link: "", code: "", locked: false)).changes.remoteOffer)
        #expect(fixture.product.remoteOffer == nil)
        let again = fixture.execute(.remoteOffer(link: "", code: "", locked: false))
        #expect(again.changes.isEmpty, "hidden again: nothing to redraw")
    }
}

@Suite struct ProductControllerLogTests {
    /// A state file and a config path come from disk, not from Multiscreen: what they contain reaches the log only
    /// escaped, so a damaged file cannot write a line of its own or drive the terminal that shows the log.
    @Test func textFromFilesIsLoggedEscaped() throws {
        let directory = NSTemporaryDirectory() + "multiscreen-log-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let statePath = directory + "/state.json"
        try #"{"version": 1, "roles": {"k": "Bad\n\u001b[2Jrole"}, "contents": {}, "cards": [], "messages": []}"#
            .write(toFile: statePath, atomically: false, encoding: .utf8)
        let recorder = LogRecorder()
        let logger = recorder.logger()
        _ = ProductController.load(
            configPath: directory + "/missing\n\u{1b}[31m.toml", statePath: statePath, logger: logger)
        let lines = recorder.recorded
        #expect(
            lines.contains { $0.contains("invalid role name") && $0.contains("Bad\\u{a}\\u{1b}[2Jrole") }, "\(lines)")
        #expect(lines.contains { $0.contains("missing\\u{a}\\u{1b}[31m.toml") }, "\(lines)")
        for line in lines { #expect(!line.hasRawControlCharacters, "raw control in \(line)") }
    }
}

/// The proof of play is written on another thread: the lines handed to a write count as unwritten until it ends, and
/// a write that keeps failing is logged once per failure, not once per write.
@Suite struct ProductControllerPlayHistoryTests {
    @Test func aFailingPlayHistoryIsLoggedOnceAndItsRecordsCountedAsLost() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plays-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let recorder = LogRecorder()
        var product = ProductController(
            model: ScreenModel(config: RoleConfig()), store: StateStore(path: directory + "/state.json"),
            logger: recorder.logger())
        func play(_ number: Int) -> Outcome {
            product.recordPlay(
                PlayRecord(
                    screen: "HDMI-A-2", source: "/srv/\(number).png", index: 0, start: Double(number), end: 1,
                    shownAt: nil, lastShownAt: nil, frames: 0))
        }
        #expect(play(1).events.map(\.name) == ["playlist.played"])
        _ = play(2)
        let firstTaken = product.playLinesToWrite()
        let first = try #require(firstTaken)
        #expect(first.count == 2)
        _ = play(3)
        #expect(product.playHistory.unwrittenCount == 3, "two in the write under way, one waiting")

        let failure = StateStoreError(
            path: directory + "/play-history.jsonl", operation: "open", reason: "Stale", task: PlayHistory.task)
        product.playLinesWritten(first.count, failure: failure)
        let secondTaken = product.playLinesToWrite()
        let second = try #require(secondTaken)
        product.playLinesWritten(second.count, failure: failure)
        #expect(recorder.recorded.filter { $0.contains("cannot write the play history: open ") }.count == 1)
        #expect(product.playHistory.lost == 3)
        #expect(product.playHistory.lastError == failure.description)

        _ = play(4)
        let thirdTaken = product.playLinesToWrite()
        let third = try #require(thirdTaken)
        product.playLinesWritten(third.count, failure: nil)
        #expect(recorder.recorded.contains { $0.contains("the play history is written again") })
        #expect(product.playHistory.lastError == nil && product.playHistory.unwrittenCount == 0)
        #expect(product.playLinesToWrite() == nil, "nothing waits")
        #expect(product.playHistory.newest(10).map(\.start) == [1, 2, 3, 4], "every record kept in memory")
    }
}

/// A broken config never puts the controller UI on a screen its rules made external: the last good config stays in
/// force, or, with none, every screen is external; `status` says which and why.
@Suite struct ProductControllerBrokenConfigTests {
    private let rules = """
        [[rule]]
        match = { name = "HEADLESS-2" }
        role = "controller"

        [[rule]]
        match = { name = "*" }
        role = "external"

        """

    private func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private static func text(_ value: JSONValue?) -> String {
        if case .string(let text) = value { return text }
        return ""
    }

    private func configStatus(_ product: inout ProductController) -> [String: JSONValue] {
        guard case .result(_, let result) = product.execute(.status).reply else { return [:] }
        return result["config"]?.objectValue ?? [:]
    }

    @Test func withNoGoodConfigEveryScreenIsExternal() throws {
        let home = try directory()
        defer { try? FileManager.default.removeItem(atPath: home) }
        try (rules + "[theme]\nbackground = \"#zzzzzz\"\n").write(
            toFile: home + "/config.toml", atomically: true, encoding: .utf8)
        var product = ProductController.load(
            configPath: home + "/config.toml", statePath: home + "/state.json", logger: Logger(label: "test"))
        _ = product.outputsChanged([first, second])
        #expect(product.model.assignment.controller == nil, "no controller UI anywhere")
        #expect(product.kind(of: 1) == .external(.messages))
        #expect(product.kind(of: 2) == .external(.messages))
        let config = configStatus(&product)
        #expect(config["source"] == .string("fail-safe"))
        #expect(Self.text(config["error"]).contains("theme.background"), "\(config)")
        #expect(!FileManager.default.fileExists(atPath: home + "/config.last-good.toml"))
    }

    @Test func theLastGoodConfigStaysInForceAtStartAndOnReload() throws {
        let home = try directory()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let path = home + "/config.toml"
        try rules.write(toFile: path, atomically: true, encoding: .utf8)
        var good = ProductController.load(configPath: path, statePath: home + "/state.json", logger: Logger(label: "t"))
        #expect(configStatus(&good)["source"] == .string("file"))
        #expect(FileManager.default.fileExists(atPath: home + "/config.last-good.toml"))

        // A typo beside the rules, then a restart: the rules of the last good config still decide.
        try (rules + "[theme]\nbackground = \"#zzzzzz\"\n").write(toFile: path, atomically: true, encoding: .utf8)
        var restarted = ProductController.load(
            configPath: path, statePath: home + "/state.json", logger: Logger(label: "t"))
        _ = restarted.outputsChanged([first, second])
        #expect(restarted.model.assignment.controller == 2, "HEADLESS-2, as the last good rules say")
        #expect(restarted.kind(of: 1) == .external(.messages))
        #expect(configStatus(&restarted)["source"] == .string("last-good"))

        // Fixed and reloaded: the file again; broken again on reload: the previous stays, and says so.
        try rules.write(toFile: path, atomically: true, encoding: .utf8)
        _ = restarted.reloadConfig()
        #expect(configStatus(&restarted)["source"] == .string("file"))
        #expect(configStatus(&restarted)["error"] == .null)
        try "[[rule]\nbroken".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(restarted.reloadConfig().changes.isEmpty)
        #expect(configStatus(&restarted)["source"] == .string("previous"))
        #expect(Self.text(configStatus(&restarted)["error"]).contains("line 1"))
    }
}

/// Retries apply once: a request whose id was answered gets the same reply and changes nothing.
@Suite struct ProductControllerRetryTests {
    @Test func aRepeatedRequestIDIsAnsweredNotAppliedAgain() {
        var product = ProductController(model: ScreenModel(), store: StateStore(path: "/nonexistent/state.json"))
        _ = product.outputsChanged([first, second])
        let send = Message.send(text: "once", screen: nil, ttl: nil)
        let applied = product.execute(send, requestID: "cli-1", now: 1_000)
        let again = product.execute(send, requestID: "cli-1", now: 2_000)
        #expect(again.reply == applied.reply)
        #expect(again.events.isEmpty && again.changes.isEmpty)
        #expect(product.model.log.newestFirst.count == 1, "applied once")
        // Another id, or none, is another request.
        _ = product.execute(send, requestID: "cli-2", now: 3_000)
        _ = product.execute(send, now: 4_000)
        #expect(product.model.log.newestFirst.count == 3)
        // An error is kept too: the retry gets the same answer.
        let refused = product.execute(.closeCard(screen: "HEADLESS-2"), requestID: "cli-3", now: 5_000)
        #expect(
            product.execute(.closeCard(screen: "HEADLESS-2"), requestID: "cli-3", now: 6_000).reply == refused.reply)
        // After the window the id is forgotten: the same id applies again.
        let later = product.execute(send, requestID: "cli-1", now: 1_000 + RetryBook.window + 1)
        #expect(later.reply != applied.reply)
        #expect(product.model.log.newestFirst.count == 4)
    }

    /// Each producer keeps its own ids: a busy one (a phone sending fast) cannot push the fleet's ids out.
    @Test func aBusyProducerCannotPushAnothersIDsOut() {
        var product = ProductController(model: ScreenModel(), store: StateStore(path: "/nonexistent/state.json"))
        _ = product.outputsChanged([first, second])
        let send = Message.send(text: "fleet", screen: nil, ttl: nil)
        let fleet = product.execute(send, requestID: "fleet:1", producer: 2, now: 1)
        for index in 0..<(RetryBook.capacity + 10) {
            _ = product.execute(.closeCard(screen: "HEADLESS-2"), requestID: "p\(index)", producer: 3, now: 2)
        }
        #expect(product.execute(send, requestID: "fleet:1", producer: 2, now: 3).reply == fleet.reply)
        #expect(product.model.log.newestFirst.count == 1)
    }

    @Test func queriesAreNotKept() {
        var product = ProductController(model: ScreenModel(), store: StateStore(path: "/nonexistent/state.json"))
        _ = product.execute(.status, requestID: "q", now: 1)
        _ = product.outputsChanged([first])
        guard case .result(_, let result) = product.execute(.status, requestID: "q", now: 2).reply else {
            Issue.record("no status")
            return
        }
        #expect(result["screens"] != .array([]), "a fresh status, not the first one")
    }
}

@Suite struct RetryBookTests {
    @Test func boundedInCount() {
        var book = RetryBook()
        for index in 0..<(RetryBook.capacity + 10) {
            book.remember(.error(MessageError(.refused, "\(index)")), for: "id-\(index)", now: UInt64(index))
        }
        #expect(book.reply(to: "id-0", now: 5_000) == nil)
        #expect(book.reply(to: "id-9", now: 5_000) == nil)
        #expect(book.reply(to: "id-10", now: 5_000) != nil)
        #expect(book.reply(to: "id-\(RetryBook.capacity + 9)", now: 5_000) != nil)
    }
}
