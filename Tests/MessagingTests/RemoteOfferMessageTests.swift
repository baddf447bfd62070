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

    @Test func isRefusedFromTheWire() {
        let line = MessageCodec.encodeRequest(.remoteOffer(link: "http://evil.example/", code: "X", locked: false))
        #expect(throws: MessageError(.notPermitted, "remote.offer is internal to Multiscreen")) {
            try MessageCodec.decodeRequest(line)
        }
    }
}
