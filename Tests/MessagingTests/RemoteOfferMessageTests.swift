import Testing

@testable import Messaging

/// `remote.offer` travels only from the phone remote's producer to the display thread: through a ring, never
/// from the wire.
@Suite struct RemoteOfferMessageTests {
    @Test func travelsThroughARing() throws {
        let bus = try MessageBus()
        let consumer = bus.makeConsumer()
        let producer = bus.makeProducer(capacity: 4)
        let offers: [Message] = [
            .remoteOffer(link: "http://127.0.0.1:8080/?code=abc_-", code: "ABCD2345", locked: false),
            .remoteOffer(link: "", code: "", locked: false),
            .remoteOffer(link: "", code: "", locked: true),
        ]
        for offer in offers { #expect(producer.trySend(offer) == .enqueued) }
        var received: [Message] = []
        _ = consumer.drain { received.append($0.message) }
        #expect(received == offers)
    }

    /// Internal methods are unknown from the wire, like any name that is not a method, and no error names them.
    @Test func isUnknownOnTheWire() {
        let line = MessageCodec.encodeRequest(.remoteOffer(link: "http://evil.example/", code: "X", locked: false))
        do {
            _ = try MessageCodec.decodeRequest(line)
            Issue.record("remote.offer was accepted from the wire")
        } catch {
            #expect(error.code == .methodNotFound)
            #expect(error.message.hasPrefix("no method \"remote.offer\" (known: send, "))
            #expect(!error.message.contains("remote.activity"))
            #expect(!error.message.dropFirst("no method \"remote.offer\"".count).contains("remote.offer"))
        }
        for method in MessageMethod.allCases where method.isInternal {
            #expect(throws: MessageError.self) {
                try MessageCodec.decodeRequest("{\"method\": \"\(method.rawValue)\"}")
            }
        }
    }
}
