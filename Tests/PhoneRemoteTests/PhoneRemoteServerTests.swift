import Foundation
import Messaging
import Testing

@testable import PhoneRemote

/// The server as `multiscreen run` makes it: bound on loopback by its own thread (making one never waits), its offer
/// reaching the display thread's side of a real bus, a second server on the port failing, stopping hiding the QR
/// code; its timer firing at the gate's deadlines only; its activities reaching the bus as `remote.*`.
@Suite struct PhoneRemoteServerTests {
    @Test func bindsPostsItsOfferAndStops() async throws {
        let bus = try MessageBus()
        let display = FakeDisplay(bus: bus)
        let server = try PhoneRemoteServer(host: "127.0.0.1", port: 0, bus: bus)
        let port = try await server.listening()
        #expect(port > 0)
        #expect(server.notes["state"] == "listening")
        #expect(await display.wait { $0.contains { $0.offerLink?.isEmpty == false } })
        guard case .remoteOffer(let link, let code, let locked)? = display.messages.first else {
            Issue.record("no offer: \(display.messages)")
            return
        }
        #expect(link.hasPrefix("http://127.0.0.1:\(port)/?code="))
        #expect(code.count == AccessGate.shortLength)
        #expect(!locked)
        guard case .code(let current) = server.hub.display else {
            Issue.record("no code")
            return
        }
        #expect(link == server.link(for: current))

        let second = try PhoneRemoteServer(host: "127.0.0.1", port: port, bus: bus)
        await #expect(throws: RemoteError.self) { try await second.listening() }
        #expect(second.notes["state"] == "failed")
        #expect(second.notes["lastError"]?.isEmpty == false)
        await second.shutdown()

        await server.shutdown()
        await server.shutdown()
        #expect(server.state == .stopped)
        #expect(await display.wait { $0.last == .remoteOffer(link: "", code: "", locked: false) })
        display.stop()
    }

    /// The gate's timer fires when a limit is due: a code with a short ttl is replaced without anyone asking.
    @Test func anExpiredCodeIsReplacedByTheTimer() async throws {
        let bus = try MessageBus()
        let display = FakeDisplay(bus: bus)
        var options = PhoneRemoteServer.Options()
        options.hub.policy.ttl = 0.3
        let server = try PhoneRemoteServer(host: "127.0.0.1", port: 0, bus: bus, options: options)
        try await server.listening()
        let rotated = await display.wait { messages in
            Set(messages.compactMap(\.offerLink).filter { !$0.isEmpty }).count >= 3
        }
        #expect(rotated, "offers: \(display.messages)")
        #expect((server.counters["codesExpired"] ?? 0) >= 2)
        await server.shutdown()
        display.stop()
    }

    /// With a code on screen and a 300 s ttl, nothing is due for minutes: the timer is armed for then, not ticking.
    @Test func theTimerWaitsForTheNextDeadline() async throws {
        let bus = try MessageBus()
        let display = FakeDisplay(bus: bus)
        let server = try PhoneRemoteServer(host: "127.0.0.1", port: 0, bus: bus)
        try await server.listening()
        // The code's expiry, 300 s after it was issued (measured from the code, not from now: a busy test run may
        // resume this test late).
        guard case .code(let code) = server.hub.display else { throw RemoteError.stopped }
        let deadline = try #require(server.hub.nextDeadline)
        #expect(abs(deadline - (code.issuedAt + AccessPolicy().ttl)) < 0.001)
        // A claim brings the idle limit (60 s) forward; a closed page, the grace (5 s).
        let token = try server.hub.claim(code.token).get()
        #expect(try #require(server.hub.nextDeadline) - server.hub.now < 61)
        let ids = try server.hub.attach(token) { _ in }.get()
        server.hub.detach(session: ids.session, connection: ids.connection, token: token)
        #expect(try #require(server.hub.nextDeadline) - server.hub.now < 6)
        await server.shutdown()
        display.stop()
    }

    @Test func controlChangesReachTheBusAsActivities() async throws {
        let bus = try MessageBus()
        let display = FakeDisplay(bus: bus)
        var options = PhoneRemoteServer.Options()
        options.hub.policy.hold = 0.2
        let server = try PhoneRemoteServer(host: "127.0.0.1", port: 0, bus: bus, options: options)
        try await server.listening()
        guard case .code(let first) = server.hub.display else { throw RemoteError.stopped }
        _ = try server.hub.claim(first.token).get()
        // After the hold the timer shows a fresh code; claiming it supersedes the first controller.
        #expect(await display.wait { $0.filter { $0.offerLink?.isEmpty == false }.count >= 2 })
        guard case .code(let second) = server.hub.display else { throw RemoteError.stopped }
        let token = try server.hub.claim(second.token).get()
        server.hub.release(token)
        let told = await display.wait { $0.compactMap(\.activity).count >= 4 }
        #expect(told)
        #expect(
            display.messages.compactMap(\.activity) == [
                RemoteActivity(kind: .claimed, session: 1), RemoteActivity(kind: .claimed, session: 2),
                RemoteActivity(kind: .superseded, session: 1, detail: "2"),
                RemoteActivity(kind: .released, session: 2, detail: "release"),
            ])
        await server.shutdown()
        display.stop()
    }
}
