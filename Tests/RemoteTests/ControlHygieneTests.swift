import Foundation
import Messaging
import Testing

@testable import Remote

/// Protocol hygiene over a real socket: JSON-RPC 2.0 answered in kind, blank lines answered, idle connections
/// closed, while every other client is served.
@Suite struct ControlHygieneTests {
    @Test func jsonRPCIsAnsweredInKindAndNotificationsAreNot() throws {
        let fixture = try ControlFixture()
        defer { fixture.tearDown() }
        let connection = try fixture.connect()
        connection.write(#"{"jsonrpc":"2.0","id":"a","method":"send","params":{"text":"one"}}"# + "\n")
        connection.write(#"{"jsonrpc":"2.0","method":"send","params":{"text":"notified"}}"# + "\n")
        connection.write(#"{"jsonrpc":"2.0","id":2,"method":"nope"}"# + "\n")
        connection.write(#"{"method":"send","params":{"text":"plain"}}"# + "\n")
        #expect(try connection.readLine() == #"{"id":"a","jsonrpc":"2.0","result":{"ok":true,"text":"one"}}"#)
        // The notification was carried out, and its reply was never written: the next line is the next request's.
        let unknown = try #require(try connection.readLine())
        #expect(unknown.hasPrefix(#"{"error":{"code":-32601,"#) && unknown.hasSuffix(#""id":2,"jsonrpc":"2.0"}"#))
        #expect(try connection.readResponse() == sent("plain"))
        #expect(eventually { fixture.display.received.contains(.send(text: "notified", screen: nil)) })
    }

    @Test func blankLinesAreAnsweredAndEmptyLinesAreNot() throws {
        let fixture = try ControlFixture()
        defer { fixture.tearDown() }
        let connection = try fixture.connect()
        connection.write("\n   \t\n" + MessageCodec.encodeRequest(.send(text: "after", screen: nil)) + "\n")
        #expect(
            try connection.readResponse() == .error(MessageError(.invalidRequest, "the request line is blank")))
        #expect(try connection.readResponse() == sent("after"))
        #expect(fixture.server.statistics.requests == 2, "the empty line is no request")
    }

    @Test func idleConnectionsAreClosedAndBusyOnesAreNot() throws {
        var options = ControlServer.Options()
        options.idleTimeout = 0.3
        let fixture = try ControlFixture(options: options)
        defer { fixture.tearDown() }
        let idle = try fixture.connect()
        let subscriber = try fixture.connect()
        subscriber.write(#"{"method":"events.subscribe"}"# + "\n")
        #expect(try subscriber.readLine() == ControlEvents.subscribeReply)
        let started = Date()
        #expect(try idle.readLine(timeout: 3) == nil, "closed by the server")
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 0.25 && waited < 2, "after about the idle timeout: \(waited) s")
        #expect(eventually { fixture.server.statistics.idleClosed == 1 })
        // A subscriber waits for events, it is not idle: still served.
        fixture.server.publish(Event(name: "still.here"))
        #expect(try subscriber.readLine() == MessageCodec.encode(Event(name: "still.here")))
        // A new client is served as ever.
        let fresh = try fixture.connect()
        fresh.request(.send(text: "new", screen: nil))
        #expect(try fresh.readResponse() == sent("new"))
    }
}
