import CompositorHarness
import Fleet
import Foundation
import Messaging
import PhoneRemote
import Remote
import Synchronization
import Testing

@testable import WebContent

/// The same good and bad requests through all four transports — the local socket, the fleet link over a real
/// mosquitto, a phone's WebSocket messages and a page's bridge — answered by one stand-in display thread: every
/// transport gives the same answer (code and wording, the caller's name aside), echoes the request's id, and applies
/// a retried request once. The local socket differs only where its peer, the kiosk's own user, may do more: every
/// method and an event stream.
@Suite(.serialized) struct TransportMatrixTests {
    /// What a remote transport (fleet, phone, page) may call in this test: the same set for all three.
    static let granted: Set<MessageMethod> = [.send, .status, .openCard]

    /// One row: a request, and the answer every remote transport gives (`local` where the socket's differs).
    struct Row: Sendable, CustomStringConvertible {
        var request: String
        var answer: Answer
        var local: Answer?
        var description: String { request.count > 80 ? String(request.prefix(80)) + "…" : request }
    }

    /// A reply reduced to what must agree across transports.
    enum Answer: Equatable, Sendable, CustomStringConvertible {
        case result(String)
        case error(Int, String)

        var description: String {
            switch self {
            case .result(let method): "result of \(method)"
            case .error(let code, let message): "error \(code): \(message)"
            }
        }
    }

    static let oversize =
        #"{"id":"big","method":"send","params":{"text":""#
        + String(repeating: "\\u0041", count: MessageCodec.maximumRequestBytes / 6 + 10) + #""}}"#

    static let rows: [Row] = [
        Row(request: #"{"id":"m1","method":"send","params":{"text":"hello"}}"#, answer: .result("send")),
        Row(request: #"{"id":"m2","method":"status"}"#, answer: .result("status")),
        Row(request: #"{"id":7,"jsonrpc":"2.0","method":"status"}"#, answer: .result("status")),
        Row(request: #"{"id":"m3","method":"card.flip"}"#, answer: codecRefusal(#"{"id":"m3","method":"card.flip"}"#)),
        Row(
            request: #"{"id":"m4","method":"send","params":{"text":"x","colour":"red"}}"#,
            answer: .error(-32602, #"send has no parameter "colour""#)),
        Row(
            request: #"{"id":"m5","method":"role.set","params":{"screen":"A","role":"controller"}}"#,
            answer: .error(-32004, "role.set is not permitted to CALLER (permitted: card.open, send, status)"),
            local: .result("role.set")),
        Row(
            request: #"{"id":"m6","method":"media.show","params":{"screen":"A","path":"/etc/passwd"}}"#,
            answer: .error(
                -32004,
                "media.show is not permitted to CALLER: it names a file on the kiosk, which only the local socket may"),
            local: .result("media.show")),
        Row(
            request: #"{"id":"m7","method":"events.subscribe"}"#,
            answer: .error(-32004, "events.subscribe is not available to CALLER: events …"),
            local: .result("events.subscribe")),
        Row(
            request: #"{"id":["m8"],"method":"status"}"#,
            answer: .error(-32600, #""id" must be a non-empty string or an integer"#)),
        Row(request: "{", answer: .error(-32700, "")),
        Row(
            request: oversize,
            answer: .error(
                -32002, "request is \(oversize.utf8.count) bytes, the limit is \(MessageCodec.maximumRequestBytes)"),
            // The socket's line reader stops reading at the limit, before the codec could count the rest.
            local: .error(
                -32002,
                "request line exceeds \(MessageCodec.maximumRequestBytes) bytes; the rest of the line was discarded")),
    ]

    /// The codec's own refusal of `request`, word for word.
    static func codecRefusal(_ request: String) -> Answer {
        do {
            _ = try MessageCodec.decode(bytes: Array(request.utf8))
            return .result("not refused")
        } catch {
            return .error(error.error.code.rawValue, error.error.message)
        }
    }

    @Test func everyTransportAnswersAlike() async throws {
        let world = try await TransportWorld()
        defer { world.stop() }
        for row in Self.rows {
            for transport in Transport.allCases {
                let reply = try await world.send(row.request, through: transport)
                let expected = transport == .local ? row.local ?? row.answer : row.answer
                #expect(Self.reduce(reply, caller: world.caller(transport)) == expected, "\(transport): \(row)")
                // A request that could not be read has no id to echo; every other reply carries its request's.
                if let id = try? JSONValue.parse(Array(row.request.utf8)).objectValue["id"], case .string = id,
                    row.request.utf8.count <= MessageCodec.maximumRequestBytes
                {
                    #expect(reply["id"] == id, "\(transport) did not echo the id of \(row)")
                }
            }
        }
    }

    /// A request sent again with the same retry key (the fleet's id, everyone else's `requestId`) is answered with
    /// the first reply and applied once, on every transport.
    @Test func aRetryIsAppliedOnceOnEveryTransport() async throws {
        let world = try await TransportWorld()
        defer { world.stop() }
        for transport in Transport.allCases {
            let text = "once via \(transport)"
            let request = #"{"id":"r-\#(transport)","method":"send","params":{"text":"\#(text)"},"requestId":"k1"}"#
            let first = try await world.send(request, through: transport)
            let second = try await world.send(request, through: transport)
            #expect(first["result"] != nil && first == second, "\(transport): \(first) then \(second)")
            #expect(world.display.applied.filter { $0 == text }.count == 1, "\(transport) applied it twice")
        }
    }

    /// The reply reduced to its method or its code and wording, with the transport's name for its callers made
    /// `CALLER` and the events.subscribe refusal's explanation (where this transport's events go) cut.
    static func reduce(_ reply: [String: JSONValue], caller: String?) -> Answer? {
        if let result = reply["result"] {
            if case .string(let method) = reply["method"] { return .result(method) }
            if result.objectValue["subscribed"] != nil { return .result("events.subscribe") }
            return .result("status")  // the JSON-RPC form names no method; the only such row asks for status
        }
        guard case .object(let error) = reply["error"], case .integer(let code) = error["code"],
            case .string(var message) = error["message"]
        else { return nil }
        if let caller { message = message.replacingOccurrences(of: caller, with: "CALLER") }
        if let cut = message.range(of: ": events ") { message = message[..<cut.upperBound] + "…" }
        if code == -32700 { message = "" }  // the parser's own words, the same bytes everywhere
        return .error(code, message)
    }
}

enum Transport: String, CaseIterable, CustomStringConvertible {
    case local, fleet, phone, page
    var description: String { rawValue }
}

/// The four transports on one bus, a stand-in display thread, and a client for each.
final class TransportWorld: @unchecked Sendable {
    let display: StandInDisplay
    let directory: String
    let control: ControlServer
    let broker: MosquittoBroker
    let link: FleetLink
    let fleetOperator: FleetOperator
    let channel: ProducerChannel
    let hub: RemoteHub
    let token: String
    let bridge: PageBridge
    private var fleetReplies: [[String: JSONValue]] = []
    private let pageScripts = ScriptLog()

    init() async throws {
        display = try StandInDisplay()
        let bus = display.bus
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        control = try ControlServer(path: directory + "/control.sock", bus: bus)

        broker = try MosquittoBroker()
        let allow = TransportMatrixTests.granted.map(\.rawValue)
        link = try FleetLink(
            config: FleetConfig(broker: try BrokerAddress(broker.url), site: "matrix", kiosk: "k", allow: allow),
            bus: bus)
        fleetOperator = try FleetOperator(settings: FleetConfig(broker: try BrokerAddress(broker.url), site: "matrix"))
        try fleetOperator.connect()
        try fleetOperator.subscribe(["multiscreen/matrix/k/reply", "multiscreen/matrix/k/online"])

        channel = ProducerChannel()
        channel.attach(to: bus)
        var options = RemoteHub.Options()
        options.methods = TransportMatrixTests.granted
        hub = RemoteHub(options: options, sender: channel)
        guard case .code(let code) = hub.display else { throw FleetOperatorError("the phone remote shows no code") }
        token = try hub.claim(code.token).get()

        bridge = PageBridge(
            bus: bus, screen: "A", permissions: PagePermissions(defaultMethods: TransportMatrixTests.granted))
        bridge.pageURL = { "file:///srv/kiosk/index.html" }
        let scripts = pageScripts
        bridge.run = { script in scripts.lines.withLock { $0.append(script) } }

        // The fleet link is ready once it announced itself online.
        try fleetOperator.step(until: FleetOperator.now() + 10) {
            self.fleetOperator.takeMessages().contains {
                $0.topic.hasSuffix("/online") && $0.payload == Array("true".utf8)
            }
        }
    }

    func stop() {
        control.stop()
        link.stop()
        fleetOperator.disconnect()
        channel.close()
        bridge.stop()
        display.stop()
        try? broker.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// How this transport names its callers in a refusal (nil: the local socket, which refuses no method).
    func caller(_ transport: Transport) -> String? {
        switch transport {
        case .local: nil
        case .fleet: "the fleet link"
        case .phone: "a phone"
        case .page: "a page from file://"
        }
    }

    /// Sends `request` and returns its reply as the transport's client sees it (a page's: the reply inside the
    /// packet, with the packet's id).
    func send(_ request: String, through transport: Transport) async throws -> [String: JSONValue] {
        switch transport {
        case .local:
            let line = try ControlClient(path: directory + "/control.sock").exchange(line: request)
            return try JSONValue.parse(Array(line.utf8)).objectValue
        case .fleet:
            try fleetOperator.publish(
                topic: FleetTopics.command(site: "matrix", target: "k"), payload: Array(request.utf8))
            var reply: [String: JSONValue]?
            try fleetOperator.step(until: FleetOperator.now() + 10) {
                reply =
                    fleetOperator.takeMessages().first { $0.topic.hasSuffix("/reply") }
                    .flatMap { try? JSONValue.parse($0.payload).objectValue }
                return reply != nil
            }
            guard let reply else { throw FleetOperatorError("no fleet reply to \(request.prefix(60))") }
            return reply
        case .phone:
            guard let line = await hub.handle(json: Array(request.utf8), token: token).line else { return [:] }
            return try JSONValue.parse(Array(line.utf8)).objectValue
        case .page:
            let before = pageScripts.lines.withLock { $0.count }
            // The bridge runs on the display thread in the product; here this task is its only caller.
            bridge.received(multiscreen: request)
            let deadline = Date().addingTimeInterval(10)
            while pageScripts.lines.withLock({ $0.count }) == before && Date() < deadline {
                try await Task.sleep(nanoseconds: 2_000_000)
            }
            guard let script = pageScripts.lines.withLock({ $0.last }),
                pageScripts.lines.withLock({ $0.count }) > before,
                let open = script.firstIndex(of: "("), let close = script.lastIndex(of: ")")
            else { throw FleetOperatorError("no page reply to \(request.prefix(60))") }
            let packets = try JSONValue.parse(Array(script[script.index(after: open)..<close].utf8))
            guard case .array(let list) = packets, case .object(let packet) = list.last,
                case .object(var reply) = packet["reply"]
            else { throw FleetOperatorError("not a reply packet: \(script.prefix(120))") }
            if let id = packet["id"], id != .null { reply["id"] = id }
            return reply
        }
    }
}

/// The display thread's part, as the product plays it for these requests: every message is answered (a `send` with
/// its id), a request id answered before by the same producer gets the first reply again without being applied (the
/// product keeps one book of ids per producer, so one transport's ids never meet another's).
final class StandInDisplay: @unchecked Sendable {
    let bus: MessageBus
    private let state = Mutex<(applied: [String], answered: [String: Reply], stopping: Bool)>(([], [:], false))

    private static func key(_ received: ReceivedMessage) -> String? {
        received.requestID.map { "\(received.producerID):\($0)" }
    }
    private let finished = DispatchSemaphore(value: 0)

    init() throws {
        bus = try MessageBus()
        nonisolated(unsafe) let consumer = bus.makeConsumer()
        Thread { [self] in
            var nextID: UInt64 = 1
            while !state.withLock({ $0.stopping }) {
                consumer.waitForMessages(timeoutMilliseconds: 20)
                consumer.drain { received in
                    if let id = Self.key(received), let reply = state.withLock({ $0.answered[id] }) {
                        received.replyTo?.deliver(reply)
                        return
                    }
                    let reply: Reply
                    switch received.message {
                    case .send(let text, let screen, _):
                        state.withLock { $0.applied.append(text) }
                        reply = .sent(id: nextID, screen: screen)
                        nextID += 1
                    case let message:
                        reply = .result(method: message.method, result: [:])
                    }
                    if let id = Self.key(received) { state.withLock { $0.answered[id] = reply } }
                    received.replyTo?.deliver(reply)
                }
            }
            finished.signal()
        }.start()
    }

    /// The texts of the `send` messages applied, in order.
    var applied: [String] { state.withLock { $0.applied } }

    func stop() {
        state.withLock { $0.stopping = true }
        finished.wait()
    }
}

/// The scripts a page was handed.
final class ScriptLog: Sendable {
    let lines = Mutex<[String]>([])
}
