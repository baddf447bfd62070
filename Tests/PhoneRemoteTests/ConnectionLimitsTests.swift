import Foundation
import Glibc
import Messaging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import PhoneRemote

/// The remote's connection limits against real sockets on loopback: caps on connections (in all, per address) and
/// WebSockets closing what is over them at once, the head, body and keep-alive timeouts closing slow connections,
/// and a whole oversize WebSocket message answered with a close 1009 read off the wire. Every refusal is counted.
/// Short timeouts come from the test's options; every wait is on a condition with a deadline.
@Suite struct ConnectionLimitsTests {
    /// A server on 127.0.0.1 with the given limits, and a display thread's stand-in answering it.
    final class Fixture: Sendable {
        let bus: MessageBus
        let display: FakeDisplay
        let server: PhoneRemoteServer
        let port: Int

        init(_ configure: (inout ConnectionLimits) -> Void = { _ in }) async throws {
            bus = try MessageBus()
            display = FakeDisplay(bus: bus)
            var options = PhoneRemoteServer.Options()
            configure(&options.hub.limits)
            server = try PhoneRemoteServer(host: "127.0.0.1", port: 0, bus: bus, options: options)
            port = try await server.listening()
        }

        func counter(_ key: String) -> Int { server.counters[key] ?? 0 }

        /// Waits until `condition` holds for the server's counters (polling, 5 s at most).
        func wait(_ condition: ([String: Int]) -> Bool) async -> Bool {
            await waitUntil { condition(self.server.counters) }
        }

        func stop() async {
            await server.shutdown()
            display.stop()
        }

        /// Claims control as a phone would and returns the session token.
        func claim() throws -> String {
            guard case .code(let code) = server.hub.display else { throw Failure("no code shown") }
            return try server.hub.claim(code.token).get()
        }

        /// The WebSocket handshake of the page, with the session's cookie.
        func upgradeRequest(token: String) -> String {
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
                + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Cookie: \(RemoteRoutes.cookieName)=\(token)\r\n\r\n"
        }
    }

    @Test func connectionsOverTheTotalCapAreClosedAtOnceAndCounted() async throws {
        let fixture = try await Fixture {
            $0.maximumConnections = 4
            $0.maximumConnectionsPerAddress = 100
        }
        let port = fixture.port
        let held = try await onThread { try (0..<4).map { _ in try RawClient(port: port) } }
        #expect(await fixture.wait { $0["connectionsOpen"] == 4 })
        let over = try await onThread { try RawClient(port: port).readUntilClosed(seconds: 5) }
        #expect(over.closed, "the connection over the cap was not closed")
        #expect(over.bytes.isEmpty)
        #expect(await fixture.wait { $0["refused.connections"] == 1 })
        // A place given back is taken again.
        held[0].close()
        #expect(await fixture.wait { $0["connectionsOpen"] == 3 })
        let answer = try await onThread {
            let client = try RawClient(port: port)
            try client.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
            return client.readUntilClosed(seconds: 5)
        }
        #expect(String(decoding: answer.bytes, as: UTF8.self).hasSuffix("ok\n"))
        #expect(fixture.counter("refused.connections") == 1)
        for client in held { client.close() }
        #expect(await fixture.wait { $0["connectionsOpen"] == 0 })
        await fixture.stop()
    }

    @Test func connectionsOverThePerAddressCapAreClosedOtherAddressesServed() async throws {
        let fixture = try await Fixture { $0.maximumConnectionsPerAddress = 3 }
        let port = fixture.port
        let held = try await onThread { try (0..<3).map { _ in try RawClient(port: port) } }
        #expect(await fixture.wait { $0["connectionsOpen"] == 3 })
        let over = try await onThread { try RawClient(port: port).readUntilClosed(seconds: 5) }
        #expect(over.closed)
        #expect(await fixture.wait { $0["refused.connectionsPerAddress"] == 1 })
        // Another address (all of 127/8 is loopback) still gets in.
        let answer = try await onThread {
            let client = try RawClient(port: port, from: "127.0.0.2")
            try client.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
            return client.readUntilClosed(seconds: 5)
        }
        #expect(String(decoding: answer.bytes, as: UTF8.self).hasSuffix("ok\n"))
        #expect(fixture.counter("refused.connections") == 0)
        for client in held { client.close() }
        await fixture.stop()
    }

    /// Slowloris: a request line and a `Host` line, then nothing.
    @Test func anIncompleteHeadIsClosedAfterTheHeadTimeout() async throws {
        let fixture = try await Fixture { $0.headTimeout = 0.5 }
        let port = fixture.port
        let started = Date()
        let outcome = try await onThread {
            let client = try RawClient(port: port)
            try client.send("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n")
            return client.readUntilClosed(seconds: 10)
        }
        #expect(outcome.closed)
        #expect(Date().timeIntervalSince(started) >= 0.4)
        #expect(await fixture.wait { $0["closed.headTimeout"] == 1 && $0["connectionsOpen"] == 0 })
        // A connection that sends nothing at all is closed too.
        let silent = try await onThread { try RawClient(port: port).readUntilClosed(seconds: 10) }
        #expect(silent.closed)
        #expect(await fixture.wait { $0["closed.headTimeout"] == 2 })
        await fixture.stop()
    }

    @Test func aSlowBodyIsClosedAfterTheBodyTimeout() async throws {
        let fixture = try await Fixture { $0.bodyTimeout = 0.5 }
        let port = fixture.port
        let outcome = try await onThread {
            let client = try RawClient(port: port)
            try client.send(
                "POST /claim HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
                    + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ncode=AB")
            return client.readUntilClosed(seconds: 10)
        }
        #expect(outcome.closed)
        #expect(await fixture.wait { $0["closed.bodyTimeout"] == 1 })
        #expect(fixture.counter("claims") == 0)
        await fixture.stop()
    }

    @Test func anIdleKeptAliveConnectionIsClosedAfterTheIdleTimeout() async throws {
        let fixture = try await Fixture { $0.idleTimeout = 0.5 }
        let port = fixture.port
        let outcome = try await onThread {
            let client = try RawClient(port: port)
            try client.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            return client.readUntilClosed(seconds: 10)
        }
        #expect(String(decoding: outcome.bytes, as: UTF8.self).hasSuffix("ok\n"))
        #expect(outcome.closed && !outcome.reset)
        #expect(await fixture.wait { $0["closed.idle"] == 1 })
        #expect(fixture.counter("closed.headTimeout") == 0)
        await fixture.stop()
    }

    /// Which timeout runs when, on NIO's embedded channel with its virtual clock: the head's from the start, the
    /// body's from a head to its end, none while the server answers, the keep-alive's from a response's end until
    /// the next head (the head timeout does not apply between requests), each starting afresh.
    @Test func theTimeoutsFollowTheRequests() throws {
        var limits = ConnectionLimits()
        limits.headTimeout = 1
        limits.bodyTimeout = 2
        limits.idleTimeout = 3
        let hub = RemoteHub(sender: RecordingSender())
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(handler: ConnectionTimeouts(limits: limits, hub: hub), loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let head = HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .POST, uri: "/send"))
        loop.advanceTime(by: .milliseconds(900))
        try channel.writeInbound(head)
        loop.advanceTime(by: .milliseconds(1900))
        #expect(channel.isActive)
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        // The server takes its time answering: no timer.
        loop.advanceTime(by: .seconds(100))
        #expect(channel.isActive)
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        // Between requests: longer than the head timeout, within the idle one.
        loop.advanceTime(by: .milliseconds(2900))
        #expect(channel.isActive)
        try channel.writeInbound(head)
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        loop.advanceTime(by: .milliseconds(2900))
        #expect(channel.isActive)
        loop.advanceTime(by: .milliseconds(200))
        #expect(!channel.isActive)
        #expect(hub.counters["closed.idle"] == 1)
        #expect(hub.counters["closed.headTimeout"] == nil)
        #expect(hub.counters["closed.bodyTimeout"] == nil)

        // A body that does not come in time; a head that does not.
        let slow = EmbeddedChannel(handler: ConnectionTimeouts(limits: limits, hub: hub), loop: loop)
        try slow.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try slow.writeInbound(head)
        loop.advanceTime(by: .seconds(2))
        #expect(!slow.isActive)
        #expect(hub.counters["closed.bodyTimeout"] == 1)
        let silent = EmbeddedChannel(handler: ConnectionTimeouts(limits: limits, hub: hub), loop: loop)
        try silent.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        loop.advanceTime(by: .seconds(1))
        #expect(!silent.isActive)
        #expect(hub.counters["closed.headTimeout"] == 1)
        _ = try? channel.finish()
        _ = try? slow.finish()
        _ = try? silent.finish()
    }

    @Test func webSocketsOverTheCapAreRefused() async throws {
        let fixture = try await Fixture { $0.maximumWebSockets = 1 }
        let token = try fixture.claim()
        let port = fixture.port
        let request = fixture.upgradeRequest(token: token)
        let first = try await onThread {
            let client = try RawClient(port: port)
            try client.send(request)
            let head = client.read(seconds: 5) { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
            return (client, String(decoding: head, as: UTF8.self))
        }
        #expect(first.1.hasPrefix("HTTP/1.1 101"), "\(first.1)")
        #expect(await fixture.wait { $0["webSocketsOpen"] == 1 })
        let second = try await onThread {
            let client = try RawClient(port: port)
            try client.send(request)
            return client.readUntilClosed(seconds: 5)
        }
        let text = String(decoding: second.bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 503"), "\(text)")
        #expect(text.contains("too many WebSockets"))
        #expect(fixture.counter("refused.webSockets") == 1)
        first.0.close()
        #expect(await fixture.wait { $0["webSocketsOpen"] == 0 })
        await fixture.stop()
    }

    @Test func webSocketsOverThePerAddressCapAreRefused() async throws {
        let fixture = try await Fixture { $0.maximumWebSocketsPerAddress = 1 }
        let token = try fixture.claim()
        let port = fixture.port
        let request = fixture.upgradeRequest(token: token)
        let first = try await onThread {
            let client = try RawClient(port: port)
            try client.send(request)
            _ = client.read(seconds: 5) { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
            return client
        }
        #expect(await fixture.wait { $0["webSocketsOpen"] == 1 })
        let second = try await onThread {
            let client = try RawClient(port: port)
            try client.send(request)
            return client.readUntilClosed(seconds: 5)
        }
        #expect(String(decoding: second.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 503"))
        #expect(fixture.counter("refused.webSocketsPerAddress") == 1)
        first.close()
        await fixture.stop()
    }

    /// The HTTP timeouts end with the upgrade: a WebSocket quiet for longer than them stays open and is answered.
    @Test func theHTTPTimeoutsDoNotApplyToAWebSocket() async throws {
        let fixture = try await Fixture {
            // The upgrade request must come within the head timeout (generous for a loaded machine); the
            // others would fire during the pause if they still applied after the upgrade.
            $0.headTimeout = 2
            $0.bodyTimeout = 0.3
            $0.idleTimeout = 0.3
        }
        let token = try fixture.claim()
        let port = fixture.port
        let request = fixture.upgradeRequest(token: token)
        let frames = try await onThread {
            let client = try RawClient(port: port)
            try client.send(request)
            let head = client.read(seconds: 5) { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
            guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else { throw Failure("no upgrade") }
            // The phone's own pause, longer than every HTTP timeout (part of the scenario).
            _ = client.read(seconds: 1) { _ in false }
            let message = #"{"method":"send","params":{"text":"after a pause"}}"#
            try client.send(bytes: WebSocketWire.maskedFrame(opcode: 1, payload: Array(message.utf8)))
            let more = client.read(seconds: 5) { WebSocketWire.frames(in: $0).contains { $0.opcode == 1 } }
            return WebSocketWire.frames(in: more)
        }
        let reply = frames.first { $0.opcode == 1 }.map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(reply?.contains(#""result""#) == true, "\(String(describing: reply))")
        #expect(fixture.counter("closed.headTimeout") == 0)
        #expect(fixture.counter("closed.bodyTimeout") == 0)
        #expect(fixture.counter("closed.idle") == 0)
        await fixture.stop()
    }

    /// Wrong codes over HTTP lock out the address that sent them; the right code from another address is taken.
    @Test func wrongCodesLockOutTheSendingAddressOverHTTP() async throws {
        let bus = try MessageBus()
        let display = FakeDisplay(bus: bus)
        var options = PhoneRemoteServer.Options()
        options.hub.policy.addressFailureBudget = 3
        let server = try PhoneRemoteServer(host: "127.0.0.1", port: 0, bus: bus, options: options)
        let port = try await server.listening()
        guard case .code(let code) = server.hub.display else { throw Failure("no code shown") }
        let statuses = try await onThread {
            // As the link's page posts it.
            func claim(_ code: String, from source: String) throws -> String {
                let client = try RawClient(port: port, from: source)
                let body = "code=\(code)"
                try client.send(
                    "POST /claim HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
                        + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n"
                        + "Connection: close\r\n\r\n\(body)")
                let answer = String(decoding: client.readUntilClosed(seconds: 5).bytes, as: UTF8.self)
                return answer.components(separatedBy: "\r\n").first ?? ""
            }
            var statuses = try (0..<3).map { _ in try claim("WRONGONE", from: "127.0.0.1") }
            statuses.append(try claim(code.token, from: "127.0.0.1"))
            statuses.append(try claim(code.token, from: "127.0.0.3"))
            return statuses
        }
        #expect(
            statuses == Array(repeating: "HTTP/1.1 403 Forbidden", count: 3) + [
                "HTTP/1.1 429 Too Many Requests", "HTTP/1.1 200 OK",
            ])
        #expect(server.counters["addressLockouts"] == 1)
        #expect(server.counters["lockouts"] == nil)
        #expect(server.counters["claims"] == 1)
        await server.shutdown()
        display.stop()
    }

    /// Per-address limits key an IPv4 client by its address and an IPv6 one by its /64.
    @Test func clientsAreKeyedByAddressAndIPv6ByItsSlash64() throws {
        func key(_ address: String) throws -> String? {
            ConnectionCounter.clientKey(try SocketAddress(ipAddress: address, port: 4242))
        }
        #expect(try key("192.0.2.7") == "192.0.2.7")
        #expect(try key("::ffff:192.0.2.7") == "::ffff:192.0.2.7")
        #expect(try key("2001:db8:1:2::5") == "2001:db8:1:2::/64")
        #expect(try key("2001:db8:1:2:ffff:ee:dd:1") == "2001:db8:1:2::/64")
        #expect(try key("2001:db8:1:3::1") == "2001:db8:1:3::/64")
        #expect(ConnectionCounter.clientKey(nil) == nil)
        // On the kiosk's own link every phone shares the /64: each is keyed by its whole address.
        let kiosk = try SocketAddress(ipAddress: "2001:db8:1:2::1", port: 8080)
        let phone = try SocketAddress(ipAddress: "2001:db8:1:2::5", port: 4242)
        #expect(ConnectionCounter.clientKey(phone, local: kiosk) == "2001:db8:1:2::5")
        let remote = try SocketAddress(ipAddress: "2001:db8:9:9::5", port: 4242)
        #expect(ConnectionCounter.clientKey(remote, local: kiosk) == "2001:db8:9:9::/64")
        #expect(try key("fe80::1234") == "fe80::1234", "link-local")
    }

    /// A browser sends a message whole, in one frame with FIN set: 20 KiB over the 16 KiB limit is answered with
    /// the error and a close frame with 1009, not a reset.
    @Test func aWholeOversizeMessageGetsClose1009() async throws {
        let fixture = try await Fixture()
        let token = try fixture.claim()
        let port = fixture.port
        let request = fixture.upgradeRequest(token: token)
        let outcome = try await onThread {
            let client = try RawClient(port: port)
            try client.send(request)
            let head = client.read(seconds: 5) { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
            let text = String(decoding: head, as: UTF8.self)
            guard text.hasPrefix("HTTP/1.1 101") else { throw Failure("no upgrade: \(text)") }
            let message = #"{"method":"send","params":{"text":""# + String(repeating: "x", count: 20 * 1024) + #""}}"#
            try client.send(bytes: WebSocketWire.maskedFrame(opcode: 1, payload: Array(message.utf8)))
            // Frames that came with the handshake's answer, then the rest until the close frame.
            let headEnd = head.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound ?? head.count
            let leftover = Array(head[headEnd...])
            let more = client.read(seconds: 5) { WebSocketWire.frames(in: leftover + $0).contains { $0.opcode == 8 } }
            // The close handshake, answered as a browser does: the kiosk then ends the connection in order (a
            // FIN, not a reset: it read the whole frame).
            try? client.send(bytes: WebSocketWire.maskedFrame(opcode: 8, payload: [0x03, 0xF1]))
            let end = client.readUntilClosed(seconds: 5)
            return (WebSocketWire.frames(in: leftover + more), end)
        }
        let (frames, end) = outcome
        #expect(end.closed && !end.reset, "the connection was reset or not closed: \(end)")
        let close = frames.first { $0.opcode == 8 }
        #expect(close.map { WebSocketWire.closeCode($0.payload) } == 1009, "frames: \(frames.map(\.opcode))")
        #expect(
            frames.contains { $0.opcode == 1 && String(decoding: $0.payload, as: UTF8.self).contains("limited to") })
        #expect(await fixture.wait { $0["refused.oversize"] == 1 })
        await fixture.stop()
    }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass.
func waitUntil(seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// A blocking TCP client on loopback for tests, used from a thread of its own (``onThread(_:)``).
final class RawClient: @unchecked Sendable {
    private var descriptor: Int32

    /// - Parameter source: the local address to connect from (any of 127/8).
    init(port: Int, from source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure("socket: \(errno)") }
        if let source {
            var local = Self.address(source, port: 0)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw Failure("bind \(source): \(errno)") }
        }
        var remote = Self.address("127.0.0.1", port: port)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure("connect: \(errno)") }
    }

    private static func address(_ host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        return address
    }

    func send(_ text: String) throws { try send(bytes: Array(text.utf8)) }

    func send(bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
            guard sent > 0 else { throw Failure("send: \(errno)") }
            offset += sent
        }
    }

    /// Reads until `enough` holds for what was read, the peer closes, or `seconds` pass.
    func read(seconds: Double, until enough: ([UInt8]) -> Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        _ = read(into: &bytes, seconds: seconds, until: enough)
        return bytes
    }

    /// Reads until the peer closes (end of file, or a reset: `reset`) or `seconds` pass.
    func readUntilClosed(seconds: Double) -> (bytes: [UInt8], closed: Bool, reset: Bool) {
        var bytes: [UInt8] = []
        let closed = read(into: &bytes, seconds: seconds) { _ in false }
        return (bytes, closed, wasReset)
    }

    /// Whether a read ended in a reset (`ECONNRESET`) rather than an end of file.
    private(set) var wasReset = false

    /// - Returns: whether the peer closed.
    private func read(into bytes: inout [UInt8], seconds: Double, until enough: ([UInt8]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !enough(bytes) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, left * 1000)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == ECONNRESET { wasReset = true }
            if count <= 0 { return true }
            bytes += buffer[0..<count]
        }
        return false
    }

    func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    deinit { close() }
}

/// RFC 6455 frames as a test client writes (masked) and reads (unmasked) them.
enum WebSocketWire {
    struct Frame {
        let opcode: UInt8
        let payload: [UInt8]
    }

    static func maskedFrame(opcode: UInt8, payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        default:
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xff) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    /// The complete frames at the start of `bytes`.
    static func frames(in bytes: [UInt8]) -> [Frame] {
        var frames: [Frame] = []
        var index = 0
        while bytes.count - index >= 2 {
            let opcode = bytes[index] & 0x0f
            var length = Int(bytes[index + 1] & 0x7f)
            var header = 2
            if length == 126 {
                guard bytes.count - index >= 4 else { break }
                length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                header = 4
            } else if length == 127 {
                guard bytes.count - index >= 10 else { break }
                length = (0..<8).reduce(0) { $0 << 8 | Int(bytes[index + 2 + $1]) }
                header = 10
            }
            guard bytes.count - index >= header + length else { break }
            frames.append(Frame(opcode: opcode, payload: Array(bytes[(index + header)..<(index + header + length)])))
            index += header + length
        }
        return frames
    }

    static func closeCode(_ payload: [UInt8]) -> Int? {
        payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil
    }
}
