import Messaging
import Testing

@testable import PhoneRemote

/// Retries apply once over the phone's WebSocket: a request carrying a `requestId` that the display thread answered
/// before is answered with the first reply and not applied again (the fake display thread keeps ids as the product's
/// does). A phone's ids live in its session's namespace: another session's equal id is its own request.
@Suite struct RemoteRetryTests {
    /// Sends each line as a masked text frame on an upgraded socket and returns the text replies, in order.
    static func exchange(_ lines: [String], token: String, fixture: ConnectionLimitsTests.Fixture) async throws
        -> [String]
    {
        let port = fixture.port
        let request = fixture.upgradeRequest(token: token)
        return try await onThread {
            let client = try RawClient(port: port)
            defer { client.close() }
            try client.send(request)
            let head = client.read(seconds: 5) { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
            let text = String(decoding: head, as: UTF8.self)
            guard text.hasPrefix("HTTP/1.1 101"), let end = text.range(of: "\r\n\r\n") else {
                throw Failure("no upgrade: \(text)")
            }
            var read = Array(text[end.upperBound...].utf8)
            var replies: [String] = []
            for line in lines {
                try client.send(bytes: WebSocketWire.maskedFrame(opcode: 1, payload: Array(line.utf8)))
                // One reply per request, in order (the fake display publishes no receipts).
                read += client.read(seconds: 5) { bytes in
                    WebSocketWire.frames(in: read + bytes).filter { $0.opcode == 1 }.count > replies.count
                }
                let texts = WebSocketWire.frames(in: read).filter { $0.opcode == 1 }
                guard texts.count > replies.count else { throw Failure("no reply to \(line)") }
                replies.append(String(decoding: texts[replies.count].payload, as: UTF8.self))
            }
            return replies
        }
    }

    @Test func theSameRequestIdTwiceIsAnsweredTwiceAndAppliedOnce() async throws {
        let fixture = try await ConnectionLimitsTests.Fixture()
        let send = #"{"method":"send","params":{"text":"Gate A boarding"},"requestId":"ops-7f3a"}"#
        let rpc = #"{"jsonrpc":"2.0","id":9,"method":"send","params":{"text":"rpc"},"requestId":"r-2"}"#
        let long = String(repeating: "x", count: MessageCodec.maximumRequestIDBytes)
        let longSend = #"{"method":"send","params":{"text":"long id"},"requestId":"\#(long)"}"#
        let token = try fixture.claim()
        let replies = try await Self.exchange(
            [send, send, rpc, rpc, longSend, longSend], token: token, fixture: fixture)
        #expect(
            replies == [
                #"{"method":"send","result":{"id":1,"screen":null}}"#,
                #"{"method":"send","result":{"id":1,"screen":null}}"#,
                #"{"id":9,"jsonrpc":"2.0","result":{"id":2,"screen":null}}"#,
                #"{"id":9,"jsonrpc":"2.0","result":{"id":2,"screen":null}}"#,
                #"{"method":"send","result":{"id":3,"screen":null}}"#,
                #"{"method":"send","result":{"id":3,"screen":null}}"#,
            ])
        let sends = { fixture.display.messages.filter { if case .send = $0 { true } else { false } } }
        #expect(
            sends() == [
                .send(text: "Gate A boarding", screen: nil), .send(text: "rpc", screen: nil),
                .send(text: "long id", screen: nil),
            ])
        // Kept in the session's namespace, every key within the display thread's 64 bytes.
        let keys = fixture.display.requestIDs.compactMap { $0 }
        #expect(keys.count == 3)
        #expect(keys.allSatisfy { $0.hasPrefix("phone.") && $0.utf8.count <= MessageCodec.maximumRequestIDBytes })
        #expect(keys.first?.hasSuffix(".1:ops-7f3a") == true, "\(keys)")

        // Another session (here the same phone after Release and a new claim) sending the same id: a new request.
        #expect(fixture.server.hub.release(token))
        let second = try fixture.claim()
        let again = try await Self.exchange([send], token: second, fixture: fixture)
        #expect(again == [#"{"method":"send","result":{"id":4,"screen":null}}"#])
        #expect(sends().count == 4)
        await fixture.stop()
    }

    /// Without a `requestId` nothing is kept: the same line twice is two messages.
    @Test func withoutARequestIdEachRequestIsApplied() async throws {
        let fixture = try await ConnectionLimitsTests.Fixture()
        let send = #"{"method":"send","params":{"text":"twice"}}"#
        let replies = try await Self.exchange([send, send], token: try fixture.claim(), fixture: fixture)
        #expect(replies.count == 2 && replies[0] != replies[1], "\(replies)")
        #expect(fixture.display.requestIDs.allSatisfy { $0 == nil })
        await fixture.stop()
    }

    @Test func retryKeysFitAndStayApart() {
        let hub = RemoteHub(sender: RecordingSender())
        let short = hub.retryKey("a", session: 1)
        #expect(short.hasPrefix("phone.") && short.hasSuffix(".1:a"))
        #expect(hub.retryKey("a", session: 2) != short)
        #expect(RemoteHub(sender: RecordingSender()).retryKey("a", session: 1) != short, "another remote's")
        let long = String(repeating: "~", count: 64)
        let hashed = hub.retryKey(long, session: 12345)
        #expect(hashed.utf8.count <= MessageCodec.maximumRequestIDBytes)
        #expect(throws: Never.self) { try MessageCodec.validateRequestID(hashed) }
        #expect(hub.retryKey(long, session: 12345) == hashed)
        #expect(hub.retryKey(String(long.dropLast()) + "}", session: 12345) != hashed)
    }
}
