import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import HummingbirdWSTesting
import Messaging
import NIOCore
import NIOWebSocket
import Synchronization
import Testing

@testable import PhoneRemote

/// WebSocket tests: HummingbirdWSTesting needs a live server, which `.live` binds on 127.0.0.1 with port 0. The
/// `Host` it sends is `localhost:<port>`, so the host policy allows any port of localhost here.
@Suite struct RemoteWebSocketTests {
    struct LiveFixture {
        let sender = RecordingSender()
        let clock = ManualClock()
        let hub: RemoteHub

        init(_ configure: (inout RemoteHub.Options) -> Void = { _ in }) {
            var options = RemoteHub.Options()
            configure(&options)
            let clock = clock
            hub = RemoteHub(options: options, clock: { clock.read() }, sender: sender)
        }

        func app(port: Int) -> some ApplicationProtocol {
            let router = RemoteRoutes.router(hub: hub, hosts: anyLocalhost())
            return Application(router: router, server: RemoteRoutes.server(hub: hub, hosts: anyLocalhost()))
        }

        var code: AccessCode {
            guard case .code(let code) = hub.display else { fatalError("no code shown") }
            return code
        }

        func config(token: String, origin: String? = nil) -> WebSocketClientConfiguration {
            var headers: HTTPFields = [.cookie: "\(RemoteRoutes.cookieName)=\(token)"]
            if let origin { headers[.origin] = origin }
            return .init(maxFrameSize: 1 << 20, additionalHeaders: headers)
        }
    }

    /// Any `localhost:PORT` (the live test server's port is not known before it binds).
    static func anyLocalhost() -> HostPolicy {
        // The WebSocket test client sends `Origin: ws://localhost`, without the port.
        HostPolicy(allowedAuthorities: Set((1024...65535).map { "localhost:\($0)" } + ["localhost"]))
    }

    @Test func sendOverTheSocketAndGetTheReply() async throws {
        let fixture = LiveFixture()
        let token = try fixture.hub.claim(fixture.code.token).get()
        let replies = Mutex<[String]>([])
        try await fixture.app(port: 0).test(.live) { client in
            try await client.ws("/ws", configuration: fixture.config(token: token)) { inbound, outbound, _ in
                try await outbound.write(.text(#"{"method":"send","params":{"text":"from the phone"}}"#))
                try await outbound.write(.binary(ByteBuffer(bytes: [1, 2, 3])))
                try await outbound.write(.text(#"{"method":"status"}"#))
                var iterator = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
                for _ in 0..<3 {
                    if case .text(let line) = try await iterator.next() { replies.withLock { $0.append(line) } }
                }
            }
        }
        let lines = replies.withLock { $0 }
        #expect(lines.count == 3)
        #expect(lines.first == #"{"method":"send","result":{"id":1,"screen":null}}"#)
        #expect(lines.count > 1 && lines[1].contains("binary frames are not accepted"))
        #expect(lines.count > 2 && lines[2].contains("-32004"))
        #expect(fixture.sender.messages == [.send(text: "from the phone", screen: nil)])
    }

    @Test func newerClaimSupersedesTheOpenSocket() async throws {
        let fixture = LiveFixture { $0.policy.idle = 10_000 }
        let first = try fixture.hub.claim(fixture.code.token).get()
        let lines = Mutex<[String]>([])
        try await fixture.app(port: 0).test(.live) { client in
            // The client may report the server's close as an error (`connectionClosing`) rather than a close frame.
            let close = try? await client.ws("/ws", configuration: fixture.config(token: first)) {
                inbound, outbound, _ in
                try await outbound.write(.text(#"{"method":"send","params":{"text":"one"}}"#))
                var iterator = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
                if case .text(let line) = try await iterator.next() { lines.withLock { $0.append(line) } }
                // Hold passes, a fresh code appears, someone else claims it.
                fixture.clock.advance(AccessPolicy().hold)
                _ = try await outbound.write(.text(#"{"method":"send","params":{"text":"keep alive"}}"#))
                if case .text(let line) = try await iterator.next() { lines.withLock { $0.append(line) } }
                fixture.hub.tick()
                _ = try fixture.hub.claim(fixture.code.token).get()
                // The server writes the reason, then closes: reading on may end in an error once it has closed.
                while let message = try? await iterator.next() {
                    if case .text(let line) = message { lines.withLock { $0.append(line) } }
                }
            }
            if let close = close ?? nil {
                #expect(close.closeCode == .policyViolation)
                #expect(close.reason == "superseded")
            }
        }
        let seen = lines.withLock { $0 }
        #expect(seen.last == #"{"error":{"code":-32004,"message":"superseded"}}"#)
        // The superseded session is refused from now on (the upgrade answers 403 for it, as for any bad token).
        #expect(throws: AccessRefusal.superseded) { try fixture.hub.authorize(first).get() }
        #expect(fixture.hub.counters["supersessions"] == 1)
    }

    @Test func oversizeMessageClosesTheSocket() async throws {
        let fixture = LiveFixture { $0.maximumMessageBytes = 256 }
        let token = try fixture.hub.claim(fixture.code.token).get()
        try await fixture.app(port: 0).test(.live) { client in
            let close = try await client.ws("/ws", configuration: fixture.config(token: token)) {
                inbound, outbound, _ in
                let text = String(repeating: "x", count: 4096)
                try await outbound.write(.text(#"{"method":"send","params":{"text":"\#(text)"}}"#))
                for try await _ in inbound {}
            }
            #expect(close?.closeCode == .messageTooLarge)
        }
        #expect(fixture.sender.messages.isEmpty)
    }

    @Test func foreignOriginCannotUpgrade() async throws {
        let fixture = LiveFixture()
        let token = try fixture.hub.claim(fixture.code.token).get()
        try await fixture.app(port: 0).test(.live) { client in
            await #expect(throws: (any Error).self) {
                try await client.ws("/ws", configuration: fixture.config(token: token, origin: "http://evil.example")) {
                    _, _, _ in
                }
            }
        }
        #expect(fixture.hub.counters["refused.origin"] == 1)
    }

    @Test func fastClientIsRateLimited() async throws {
        let fixture = LiveFixture { $0.messagesPerSecond = 3 }
        let token = try fixture.hub.claim(fixture.code.token).get()
        let lines = Mutex<[String]>([])
        try await fixture.app(port: 0).test(.live) { client in
            try await client.ws("/ws", configuration: fixture.config(token: token)) { inbound, outbound, _ in
                for index in 0..<6 {
                    try await outbound.write(.text(#"{"method":"send","params":{"text":"\#(index)"}}"#))
                }
                var iterator = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
                for _ in 0..<6 {
                    if case .text(let line) = try await iterator.next() { lines.withLock { $0.append(line) } }
                }
            }
        }
        let seen = lines.withLock { $0 }
        #expect(seen.filter { $0.contains("-32003") }.count >= 2)
        #expect(fixture.sender.messages.count <= 4)
    }

    /// A message over the limit split into frames each within it (so the frame decoder cannot see it): the socket is
    /// closed with 1009 at once and the connection's handler ends, from a real client over a real socket.
    @Test func fragmentedOversizeMessageClosesTheSocketAndEndsTheHandler() async throws {
        let fixture = LiveFixture { $0.maximumMessageBytes = 256 }
        let token = try fixture.hub.claim(fixture.code.token).get()
        try await fixture.app(port: 0).test(.live) { client in
            let close = try await withDeadline(seconds: 30) {
                try await client.ws("/ws", configuration: fixture.config(token: token)) { inbound, outbound, _ in
                    let piece = ByteBuffer(string: String(repeating: "x", count: 200))
                    try await outbound.write(.custom(.init(fin: false, opcode: .text, data: piece)))
                    for _ in 0..<200 {
                        try? await outbound.write(.custom(.init(fin: false, opcode: .continuation, data: piece)))
                    }
                    for try await _ in inbound {}
                }
            }
            #expect(close??.closeCode == .messageTooLarge)
            // The handler has ended: the session has no live connection left.
            let ended = await poll(seconds: 5) { fixture.hub.counters["controllerConnected"] == 0 }
            #expect(ended)
        }
        #expect(fixture.hub.counters["refused.oversize"] == 1)
        #expect(fixture.sender.messages.isEmpty)
    }

    /// A text message that is not UTF-8 is answered with an error and closes the socket with 1007; a continuation
    /// frame with no message to continue breaks RFC 6455 and closes it with 1002. Neither reaches the display.
    @Test(arguments: [
        (WebSocketOpcode.text, [UInt8]([0x22, 0xff, 0xfe, 0x22]), WebSocketErrorCode.dataInconsistentWithMessage),
        (WebSocketOpcode.continuation, Array("{}".utf8), WebSocketErrorCode.protocolError),
    ])
    func badFramesCloseTheSocket(opcode: WebSocketOpcode, payload: [UInt8], expected: WebSocketErrorCode) async throws {
        let fixture = LiveFixture()
        let token = try fixture.hub.claim(fixture.code.token).get()
        let lines = Mutex<[String]>([])
        try await fixture.app(port: 0).test(.live) { client in
            let close = try await withDeadline(seconds: 30) {
                try await client.ws("/ws", configuration: fixture.config(token: token)) { inbound, outbound, _ in
                    try await outbound.write(
                        .custom(.init(fin: true, opcode: opcode, data: ByteBuffer(bytes: payload))))
                    for try await frame in inbound where frame.opcode == .text {
                        lines.withLock { $0.append(String(buffer: frame.data)) }
                    }
                }
            }
            #expect(close??.closeCode == expected)
        }
        #expect(lines.withLock { $0 }.first?.contains("-32600") == true, "\(lines.withLock { $0 })")
        #expect(fixture.sender.messages.isEmpty)
    }

    /// An upgrade the kiosk refuses is answered with why, over a real socket: 401 without a session cookie, 403 with
    /// one that holds no control; neither becomes a WebSocket.
    @Test func refusedUpgradesSayWhy() async throws {
        let fixture = LiveFixture()
        let upgrade: HTTPFields = [
            .upgrade: "websocket", .connection: "Upgrade", .secWebSocketVersion: "13",
            .secWebSocketKey: "dGhlIHNhbXBsZSBub25jZQ==",
        ]
        var forged = upgrade
        forged[.cookie] = "\(RemoteRoutes.cookieName)=forged"
        // One connection each: the kiosk closes the connection after a refusal, as the status says.
        for (headers, status) in [(upgrade, HTTPResponse.Status.unauthorized), (forged, .forbidden)] {
            try await fixture.app(port: 0).test(.live) { client in
                try await client.execute(uri: "/ws", method: .get, headers: headers) { response in
                    #expect(response.status == status)
                    #expect(String(buffer: response.body) == "no_session\n")
                    #expect(response.headers[.connection] == "close")
                }
            }
        }
        #expect(fixture.hub.counters["refused.no_session"] == 2)
    }

    /// NIO upgrades only a connection's first request: an upgrade asked for later on a kept-alive connection is
    /// redirected to the same address (307), and that connection closed, so the client opens a new one.
    @Test func aLateUpgradeIsRedirected() async throws {
        let fixture = LiveFixture()
        let upgrade: HTTPFields = [
            .upgrade: "websocket", .connection: "Upgrade", .secWebSocketVersion: "13",
            .secWebSocketKey: "dGhlIHNhbXBsZSBub25jZQ==",
        ]
        try await fixture.app(port: 0).test(.live) { client in
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/ws?x=1", method: .get, headers: upgrade) { response in
                #expect(response.status == .temporaryRedirect)
                #expect(response.headers[.location] == "/ws?x=1")
            }
        }
    }

    /// Each send is acknowledged twice: its reply (the id), then one `message.shown` per screen that shows it.
    @Test func receiptsFollowTheReplyScreenByScreen() async throws {
        let fixture = LiveFixture()
        let token = try fixture.hub.claim(fixture.code.token).get()
        let lines = Mutex<[String]>([])
        try await fixture.app(port: 0).test(.live) { client in
            try await client.ws("/ws", configuration: fixture.config(token: token)) { inbound, outbound, _ in
                try await outbound.write(.text(#"{"method":"send","params":{"text":"hello"}}"#))
                var iterator = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
                if case .text(let line) = try await iterator.next() { lines.withLock { $0.append(line) } }
                // The display thread's frame.shown for two screens, and one for a message this phone did not send.
                fixture.hub.receipts.take(Self.frameShown(screen: "HEADLESS-2", ids: [1], shownAt: 2_000_000))
                fixture.hub.receipts.take(Self.frameShown(screen: "HEADLESS-3", ids: [99, 1], shownAt: 3_000_000))
                for _ in 0..<2 {
                    if case .text(let line) = try await iterator.next() { lines.withLock { $0.append(line) } }
                }
            }
        }
        let seen = lines.withLock { $0 }
        #expect(seen.count == 3)
        #expect(seen.first == #"{"method":"send","result":{"id":1,"screen":null}}"#)
        #expect(
            seen.dropFirst().first
                == #"{"method":"message.shown","params":{"id":1,"ms":1.0,"screen":"HEADLESS-2","screens":1,"shownAt":2000000,"source":"presented"}}"#
        )
        #expect(seen.last?.contains(#""screen":"HEADLESS-3","screens":2"#) == true)
        #expect(fixture.hub.counters["receiptsDelivered"] == 2)
        // The connection ended: nothing is owed any more, so the display thread need not build events for it.
        #expect(fixture.hub.receipts.wantsEvents == false)
    }

    /// Closing the page (its socket) releases control after the grace: the QR code comes back with a fresh code.
    @Test func closingThePageReleasesControlAfterTheGrace() async throws {
        let fixture = LiveFixture()
        let token = try fixture.hub.claim(fixture.code.token).get()
        try await fixture.app(port: 0).test(.live) { client in
            try await client.ws("/ws", configuration: fixture.config(token: token)) { _, outbound, _ in
                try await outbound.close(.goingAway, reason: nil)
            }
            #expect(await poll(seconds: 5) { fixture.hub.counters["controllerConnected"] == 0 })
        }
        #expect(fixture.hub.display == .inControl)
        fixture.clock.advance(AccessPolicy().closeGrace)
        fixture.hub.tick()
        guard case .code = fixture.hub.display else {
            Issue.record("no code after the page closed")
            return
        }
        #expect(throws: AccessRefusal.closed) { try fixture.hub.authorize(token).get() }
        #expect(fixture.hub.counters["closedEnded"] == 1)
    }

    static func frameShown(screen: String, ids: [Int], shownAt: Int) -> Event {
        Event(
            name: "frame.shown",
            params: [
                "screen": .string(screen), "source": .string("presented"), "shownAt": .integer(shownAt),
                "messages": .array(ids.map { .object(["id": .integer($0), "enqueuedAt": .integer(1_000_000)]) }),
            ])
    }
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass.
func poll(seconds: Double, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

struct DeadlineExceeded: Error {}

/// Runs `body`, or records an issue and returns nil when it has not finished within `seconds` (a hang is a failure,
/// not a stuck test run).
func withDeadline<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = try await group.next()!
        group.cancelAll()
        if first == nil { Issue.record("did not finish within \(seconds) s") }
        return first
    }
}
