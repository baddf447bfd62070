import Foundation
import Messaging
import Synchronization
import Testing

@testable import Remote

@Suite struct ControlClientTests {
    /// A batch is sent whole before any answer: 20 requests, more than a connection may have in flight (8), go over
    /// 3 connections and all reach the display before it answers one; the replies come back in the batch's order.
    @Test func aBatchIsSentWholeOverEnoughConnectionsAndAnsweredInOrder() throws {
        let fixture = try ControlFixture(paused: true)
        defer { fixture.tearDown() }
        let messages = (0..<20).map { Message.send(text: "m\($0)", screen: nil, ttl: nil) }
        let replies = Mutex<[Reply]?>(nil)
        let client = ControlClient(path: fixture.path)
        let thread = Thread {
            let answered = try? client.requests(messages.map { ($0, nil) })
            replies.withLock { $0 = answered }
        }
        thread.start()
        #expect(eventually { fixture.server.statistics.requests == 20 })
        #expect(fixture.server.statistics.connectionsAccepted == 3)
        #expect(fixture.display.received.isEmpty)
        fixture.display.resume()
        #expect(eventually { replies.withLock { $0 != nil } })
        let texts = replies.withLock { $0 ?? [] }.map { reply -> JSONValue? in
            if case .result(_, let result) = reply { return result["text"] }
            return nil
        }
        #expect(texts == (0..<20).map { .string("m\($0)") })
    }

    @Test func nothingListening() throws {
        let directory = TemporaryDirectory()
        let client = ControlClient(path: directory.socketPath, timeoutMilliseconds: 500)
        #expect(throws: ControlError.notListening(path: directory.socketPath)) { try client.request(.status) }
        #expect(
            ControlError.notListening(path: "/p").description == "no Multiscreen listening at /p (is it running?)")
    }

    /// A listener that never accepts: the connection sits in its backlog and no reply comes.
    @Test func timeout() throws {
        let directory = TemporaryDirectory()
        let listener = try ControlSocket.makeSocket(path: directory.socketPath)
        defer { close(listener) }
        #expect(try ControlSocket.withAddress(directory.socketPath) { bind(listener, $0, $1) } == 0)
        #expect(listen(listener, 4) == 0)
        let client = ControlClient(path: directory.socketPath, timeoutMilliseconds: 150)
        let start = Date()
        #expect(throws: ControlError.timedOut(path: directory.socketPath, milliseconds: 150)) {
            try client.request(.status)
        }
        #expect(Date().timeIntervalSince(start) < 2)
    }

    @Test func malformedReplyAndEarlyClose() throws {
        let directory = TemporaryDirectory()
        let listener = try ControlSocket.makeSocket(path: directory.socketPath)
        defer { close(listener) }
        #expect(try ControlSocket.withAddress(directory.socketPath) { bind(listener, $0, $1) } == 0)
        #expect(listen(listener, 4) == 0)
        let replies = ["not json\n", ""]
        let served = DispatchSemaphore(value: 0)
        Thread {
            for reply in replies {
                var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                _ = poll(&entry, 1, 3000)
                let connection = accept(listener, nil, nil)
                var scratch = [UInt8](repeating: 0, count: 4096)
                _ = scratch.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                _ = Array(reply.utf8).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
                close(connection)
            }
            served.signal()
        }.start()
        let client = ControlClient(path: directory.socketPath, timeoutMilliseconds: 3000)
        do {
            _ = try client.request(.status)
            Issue.record("expected a malformed reply")
        } catch {
            guard case .malformedReply(let excerpt, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(excerpt == "not json")
        }
        #expect(throws: ControlError.closedBeforeReply(path: directory.socketPath)) { try client.request(.status) }
        served.wait()
    }
}
