import CompositorHarness
import Foundation
import Messaging
import Testing

@testable import Remote

/// Event subscription over a real socket: `events.subscribe`, then every ``ControlServer/publish(_:)`` as a line.
@Suite struct ControlEventsTests {
    static let subscribeRequest = #"{"method": "events.subscribe"}"# + "\n"

    static func event(_ number: Int, padding: Int = 0) -> Event {
        var params: [String: JSONValue] = ["n": .integer(number)]
        if padding > 0 { params["pad"] = .string(String(repeating: "x", count: padding)) }
        return Event(name: "test.event", params: params)
    }

    /// The line a subscriber reads for ``event(_:padding:)``.
    static func line(_ number: Int, padding: Int = 0) -> String {
        MessageCodec.encode(event(number, padding: padding))
    }

    /// Subscribes `connection` and waits for the reply (the subscription is live from then on).
    static func subscribe(_ connection: TestConnection) throws {
        connection.write(subscribeRequest)
        #expect(try connection.readLine() == ControlEvents.subscribeReply)
    }

    @Test func subscribeThenEventsArriveInOrder() throws {
        let fixture = try ControlFixture()
        defer { fixture.tearDown() }
        let connection = try fixture.connect()
        try Self.subscribe(connection)
        #expect(ControlEvents.subscribeReply == #"{"method":"events.subscribe","result":{}}"#)
        #expect(fixture.server.hasSubscribers)
        #expect(fixture.server.statistics.subscribers == 1)
        for number in 0..<100 { fixture.server.publish(Self.event(number)) }
        for number in 0..<100 { #expect(try connection.readLine() == Self.line(number)) }
        let statistics = fixture.server.statistics
        #expect(statistics.eventsPublished == 100)
        #expect(statistics.eventsDropped == 0)
        #expect(eventually { fixture.server.statistics.replies == 1 })
        #expect(fixture.server.statistics.requests == 1)
        // Subscriptions never reach the display thread.
        #expect(fixture.display.received.isEmpty)
    }

    /// `params` may be given when empty; anything else in it is an error, and the connection is not subscribed.
    @Test func subscribeParams() throws {
        let fixture = try ControlFixture()
        defer { fixture.tearDown() }
        let connection = try fixture.connect()
        connection.write(#"{"method":"events.subscribe","params":{"kind":"role"}}"# + "\n")
        #expect(errorCode(try connection.readResponse()) == .invalidParams)
        // Decoded by the codec like every method: `params` that is not an object is not a request.
        connection.write(#"{ "params" : 3, "method" : "events.subscribe" }"# + "\n")
        #expect(errorCode(try connection.readResponse()) == .invalidRequest)
        connection.write(#"{"method":"events.subscribe","colour":"red"}"# + "\n")
        #expect(errorCode(try connection.readResponse()) == .invalidRequest)
        connection.write(#"{"method":"events.unsubscribe"}"# + "\n")
        #expect(errorCode(try connection.readResponse()) == .methodNotFound)
        #expect(fixture.server.statistics.subscribers == 0)
        connection.write(#"{ "params" : { }, "method" : "events.subscribe" }"# + "\r\n")
        #expect(try connection.readLine() == ControlEvents.subscribeReply)
        fixture.server.publish(Self.event(1))
        #expect(try connection.readLine() == Self.line(1))
        #expect(eventually { fixture.server.statistics.replies == 5 })
        #expect(fixture.server.statistics.malformed == 4)
    }

    @Test func twoSubscribersAndANonSubscriber() throws {
        let fixture = try ControlFixture()
        defer { fixture.tearDown() }
        let first = try fixture.connect()
        let second = try fixture.connect()
        let bystander = try fixture.connect()
        try Self.subscribe(first)
        try Self.subscribe(second)
        bystander.request(.status)
        #expect(try bystander.readResponse() == .result(method: .status, result: ["ok": .bool(true)]))
        #expect(fixture.server.statistics.subscribers == 2)
        for number in 0..<5 { fixture.server.publish(Self.event(number)) }
        for number in 0..<5 {
            #expect(try first.readLine() == Self.line(number))
            #expect(try second.readLine() == Self.line(number))
        }
        // Every event has been written; the bystander's next line is the reply to its next request, nothing else.
        bystander.request(.send(text: "after", screen: nil))
        #expect(try bystander.readResponse() == sent("after"))
        #expect(throws: HarnessError.self) { try bystander.readLine(timeout: 0.2) }
    }

    /// Requests on a subscribed connection keep their replies in request order; events come between replies, never
    /// inside one, and do not wait for a reply the display thread owes.
    @Test func requestsAfterSubscribingKeepTheirOrder() throws {
        let fixture = try ControlFixture(paused: true)
        defer { fixture.tearDown() }
        let connection = try fixture.connect()
        try Self.subscribe(connection)
        connection.write(
            MessageCodec.encodeRequest(.send(text: "1", screen: nil)) + "\n{\"method\": \n"
                + MessageCodec.encodeRequest(.send(text: "3", screen: nil)) + "\n")
        #expect(eventually { fixture.server.statistics.requests == 4 })
        fixture.server.publish(Self.event(1))
        // The display thread is paused: the event overtakes the replies it owes.
        #expect(try connection.readLine() == Self.line(1))
        fixture.display.resume()
        #expect(try connection.readResponse() == sent("1"))
        #expect(errorCode(try connection.readResponse()) == .parseError)
        #expect(try connection.readResponse() == sent("3"))
        fixture.server.publish(Self.event(2))
        #expect(try connection.readLine() == Self.line(2))

        // Many of both at once: whole lines, replies in order, events in order.
        for number in 0..<200 {
            connection.request(.send(text: "r\(number)", screen: nil))
            fixture.server.publish(Self.event(1000 + number))
        }
        var replies: [Reply] = []
        var events: [String] = []
        while replies.count < 200 || events.count < 200 {
            guard let line = try connection.readLine() else { break }
            if line.hasPrefix(#"{"method":"test.event""#) {
                events.append(line)
            } else {
                replies.append(try MessageCodec.decodeResponse(line))
            }
        }
        #expect(replies == (0..<200).map { sent("r\($0)") })
        #expect(events == (0..<200).map { Self.line(1000 + $0) })
    }

    /// The subscription starts with its reply, which waits its turn behind earlier requests' replies: an event
    /// published before that reply is written is not for this connection, and nothing precedes the reply.
    @Test func subscriptionStartsWithItsReply() throws {
        let fixture = try ControlFixture(paused: true)
        defer { fixture.tearDown() }
        let connection = try fixture.connect()
        connection.request(.send(text: "first", screen: nil))
        connection.write(Self.subscribeRequest)
        #expect(eventually { fixture.server.statistics.requests == 2 })
        fixture.server.publish(Self.event(0))
        #expect(fixture.server.statistics.subscribers == 0)
        fixture.display.resume()
        #expect(try connection.readResponse() == sent("first"))
        #expect(try connection.readLine() == ControlEvents.subscribeReply)
        fixture.server.publish(Self.event(1))
        #expect(try connection.readLine() == Self.line(1))
    }

    /// A subscriber that reads nothing: its socket fills, then its output buffer; further events are dropped and
    /// counted, the server keeps serving everyone else, and when the subscriber catches up it reads every event
    /// queued before the drops, then one `events.dropped` line with their number, then new events again.
    @Test func slowSubscriberDropsAndCountsThenCatchesUp() throws {
        var options = ControlServer.Options()
        options.outputBufferLimit = 64 << 10
        let fixture = try ControlFixture(options: options)
        defer { fixture.tearDown() }
        let slow = try fixture.connect()
        try Self.subscribe(slow)
        var published = 0
        while fixture.server.statistics.eventsDropped == 0 && published < 100_000 {
            for _ in 0..<50 {
                fixture.server.publish(Self.event(published, padding: 1000))
                published += 1
            }
            usleep(1000)
        }
        #expect(eventually { fixture.server.statistics.eventsPublished == published })
        // The mailbox is taken in one piece per wakeup: wait until the last event has been handled.
        let other = try fixture.connect()
        try Self.subscribe(other)
        fixture.server.publish(Self.event(-1))
        #expect(try other.readLine() == Self.line(-1))
        published += 1
        // Everyone else is still served. (And this reply is written after the wakeup that handled the last event
        // has published its counters.)
        #expect(
            try ControlClient(path: fixture.path, timeoutMilliseconds: 3000).request(.send(text: "x", screen: nil))
                == sent("x"))
        let dropped = fixture.server.statistics.eventsDropped
        #expect(dropped > 0)

        var received = 0
        while true {
            guard let line = try slow.readLine() else {
                Issue.record("end of stream")
                return
            }
            if line == Self.line(received, padding: 1000) {
                received += 1
                continue
            }
            #expect(line == ControlEvents.droppedLine(count: dropped))
            #expect(line == #"{"method":"events.dropped","params":{"count":\#(dropped)}}"#)
            break
        }
        #expect(received > 0)
        #expect(received + dropped == published)
        fixture.server.publish(Self.event(7))
        #expect(try slow.readLine() == Self.line(7))
        #expect(fixture.server.statistics.eventsDropped == dropped)
    }

    /// Nobody subscribed: publishing counts, and that is all: no lock taken on the server's side, no eventfd write.
    @Test func publishWithoutSubscribersWakesNobody() throws {
        let fixture = try ControlFixture()
        defer { fixture.tearDown() }
        let plain = try fixture.connect()
        plain.request(.status)
        _ = try plain.readResponse()
        let wakeups = fixture.server.mailbox.wakeups.load(ordering: .relaxed)
        #expect(!fixture.server.hasSubscribers)
        for number in 0..<10_000 { fixture.server.publish(Self.event(number)) }
        #expect(fixture.server.statistics.eventsPublished == 10_000)
        #expect(fixture.server.mailbox.wakeups.load(ordering: .relaxed) == wakeups)
        #expect(fixture.server.mailbox.pending == 0)
        #expect(fixture.server.statistics.eventsDropped == 0)
        #expect(throws: HarnessError.self) { try plain.readLine(timeout: 0.1) }
    }

    /// Many events between two server wakeups cost one eventfd write, not one each.
    @Test func burstOfEventsCoalescesWakeups() throws {
        let fixture = try ControlFixture()
        defer { fixture.tearDown() }
        let connection = try fixture.connect()
        try Self.subscribe(connection)
        let wakeups = fixture.server.mailbox.wakeups.load(ordering: .relaxed)
        for number in 0..<1000 { fixture.server.publish(Self.event(number)) }
        for number in 0..<1000 { #expect(try connection.readLine() == Self.line(number)) }
        #expect(fixture.server.mailbox.wakeups.load(ordering: .relaxed) - wakeups < 1000)
    }

    /// Closing the connection unsubscribes; a half-closed subscriber still gets events until it closes.
    @Test func closingUnsubscribes() throws {
        let fixture = try ControlFixture()
        defer { fixture.tearDown() }
        do {
            let connection = try fixture.connect()
            try Self.subscribe(connection)
            #expect(fixture.server.hasSubscribers)
        }
        #expect(eventually { fixture.server.statistics.subscribers == 0 })
        #expect(!fixture.server.hasSubscribers)
        let wakeups = fixture.server.mailbox.wakeups.load(ordering: .relaxed)
        fixture.server.publish(Self.event(0))
        #expect(fixture.server.mailbox.wakeups.load(ordering: .relaxed) == wakeups)

        let halfClosed = try fixture.connect()
        try Self.subscribe(halfClosed)
        halfClosed.shutdownWriting()
        usleep(50_000)
        fixture.server.publish(Self.event(1))
        #expect(try halfClosed.readLine() == Self.line(1))
        #expect(fixture.server.statistics.subscribers == 1)
    }

    /// After `stop`, publishing is harmless, and the subscriber sees the end of its stream.
    @Test func stopEndsTheStream() throws {
        let fixture = try ControlFixture()
        let connection = try fixture.connect()
        try Self.subscribe(connection)
        fixture.tearDown()
        #expect(try connection.readLine() == nil)
        fixture.server.publish(Self.event(0))
        #expect(fixture.server.statistics.subscribers == 0)
        #expect(!fixture.server.hasSubscribers)
    }

    // MARK: ControlClient

    /// Publishes `count` events as soon as someone subscribes, from another thread.
    static func publishWhenSubscribed(_ server: ControlServer, count: Int) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread {
            if eventually({ server.hasSubscribers }) {
                for number in 0..<count { server.publish(event(number)) }
            }
            done.signal()
        }.start()
        return done
    }

    @Test func clientReadsEventsUntilTheHandlerStops() throws {
        let fixture = try ControlFixture()
        defer { fixture.tearDown() }
        let done = Self.publishWhenSubscribed(fixture.server, count: 5)
        var lines: [String] = []
        let client = ControlClient(path: fixture.path, timeoutMilliseconds: 3000)
        let end = try client.events(durationMilliseconds: 5000) { line in
            lines.append(line)
            return lines.count < 3
        }
        done.wait()
        #expect(end == .stopped)
        #expect(lines == (0..<3).map { Self.line($0) })
        #expect(eventually { fixture.server.statistics.subscribers == 0 })
    }

    @Test func clientStopsAtItsDuration() throws {
        let fixture = try ControlFixture()
        defer { fixture.tearDown() }
        let done = Self.publishWhenSubscribed(fixture.server, count: 2)
        var lines: [String] = []
        let start = Date()
        let end = try ControlClient(path: fixture.path).events(durationMilliseconds: 300) { line in
            lines.append(line)
            return true
        }
        done.wait()
        #expect(end == .timedOut)
        #expect(lines == [Self.line(0), Self.line(1)])
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= 0.29 && elapsed < 2)
    }

    @Test func clientSeesTheServerClose() throws {
        let fixture = try ControlFixture()
        defer { fixture.tearDown() }
        let server = fixture.server
        // Stop only once the client has the event: a stop that overtakes it in the mailbox would discard it.
        let eventRead = DispatchSemaphore(value: 0)
        let stopper = Thread {
            if eventually({ server.hasSubscribers }) {
                server.publish(Self.event(0))
                _ = eventRead.wait(timeout: .now() + 3)
            }
            server.stop()
        }
        stopper.start()
        var lines: [String] = []
        let end = try ControlClient(path: fixture.path, timeoutMilliseconds: 3000).events { line in
            lines.append(line)
            eventRead.signal()
            return true
        }
        #expect(end == .closed)
        #expect(lines == [Self.line(0)])
    }

    /// A server without events (an older Multiscreen) answers `methodNotFound`: the client says so, not "malformed".
    @Test func clientReportsARefusedSubscription() throws {
        let directory = TemporaryDirectory()
        let listener = try ControlSocket.makeSocket(path: directory.socketPath)
        defer { close(listener) }
        #expect(try ControlSocket.withAddress(directory.socketPath) { bind(listener, $0, $1) } == 0)
        #expect(listen(listener, 4) == 0)
        let refusal = MessageError(.methodNotFound, "no method \"events.subscribe\"")
        let served = DispatchSemaphore(value: 0)
        Thread {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, 3000)
            let connection = accept(listener, nil, nil)
            var scratch = [UInt8](repeating: 0, count: 4096)
            _ = scratch.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            let reply = MessageCodec.encodeError(refusal) + "\n"
            _ = Array(reply.utf8).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
            close(connection)
            served.signal()
        }.start()
        let end = try ControlClient(path: directory.socketPath, timeoutMilliseconds: 3000).events { _ in true }
        #expect(end == .refused(refusal))
        served.wait()
    }
}
