import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import HummingbirdWSTesting
import HummingbirdWebSocket
import Messaging
import NIOCore
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
            return Application(
                router: router,
                server: .http1WebSocketUpgrade(
                    webSocketRouter: router,
                    configuration: .init(ws: .init(maxFrameSize: hub.options.maximumMessageBytes))))
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
}
