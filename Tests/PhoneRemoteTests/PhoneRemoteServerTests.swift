import Messaging
import Testing

@testable import PhoneRemote

/// The server as `multiscreen run` makes it: bound on loopback, its offer reaching the display thread's side of a
/// real bus, a second server on the same port refused, stopping hiding the QR code.
@Suite struct PhoneRemoteServerTests {
    @Test func bindsPostsItsOfferAndStops() throws {
        let bus = try MessageBus()
        let consumer = bus.makeConsumer()
        let server = try PhoneRemoteServer(host: "127.0.0.1", port: 0, bus: bus)
        #expect(server.port > 0)
        var received: [Message] = []
        _ = consumer.drain { received.append($0.message) }
        guard case .remoteOffer(let link, let code, let locked)? = received.first else {
            Issue.record("no offer: \(received)")
            return
        }
        #expect(link.hasPrefix("http://127.0.0.1:\(server.port)/?code="))
        #expect(code.count == AccessGate.shortLength)
        #expect(!locked)
        guard case .code(let current) = server.hub.display else {
            Issue.record("no code")
            return
        }
        #expect(link == server.link(for: current))

        #expect(throws: RemoteError.self) { try PhoneRemoteServer(host: "127.0.0.1", port: server.port, bus: bus) }

        server.stop()
        server.stop()
        received = []
        _ = consumer.drain { received.append($0.message) }
        #expect(received.last == .remoteOffer(link: "", code: "", locked: false))
    }
}
