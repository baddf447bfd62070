import Messaging
import Synchronization
import Testing

@testable import PhoneRemote

/// The channel against a real bus: a consumer thread plays the display thread and answers in order.
@Suite struct ProducerChannelTests {
    @Test func repliesComeBackToTheirRequestsInOrder() async throws {
        let bus = try MessageBus()
        let consumer = bus.makeConsumer()
        let channel = ProducerChannel()
        channel.attach(to: bus, capacity: 64)
        let stop = Atomic<Bool>(false)
        // The display thread's stand-in blocks in `waitForMessages`: a thread of its own, not the cooperative pool's.
        // It is the consumer's only user from here on.
        let owned = OwnedConsumer(consumer)
        let display = Task {
            try await onThread {
                var next = 1
                while !stop.load(ordering: .relaxed) {
                    _ = owned.consumer.drain { received in
                        received.replyTo?.deliver(.sent(id: UInt64(next), screen: nil))
                        next += 1
                    }
                    _ = owned.consumer.waitForMessages(timeoutMilliseconds: 10)
                }
            }
        }
        // A posted message takes its place in the order without anyone waiting for its reply.
        #expect(channel.post(.send(text: "posted", screen: nil)))
        let replies = await withTaskGroup(of: (Int, Reply).self) { group in
            for index in 0..<20 {
                group.addTask { (index, await channel.request(.send(text: "\(index)", screen: nil))) }
            }
            var all: [(Int, Reply)] = []
            for await reply in group { all.append(reply) }
            return all
        }
        // Every request got one reply, each a distinct id after the posted one's.
        let ids = Set(
            replies.compactMap { _, reply -> Int? in
                if case .result(_, let result) = reply, case .integer(let id)? = result["id"] { return id }
                return nil
            })
        #expect(ids == Set(2...21))
        stop.store(true, ordering: .relaxed)
        try await display.value
        channel.close()
        let afterClose = await channel.request(.send(text: "late", screen: nil))
        #expect(afterClose == .error(MessageError(.busy, "the remote is stopping")))
        #expect(!channel.post(.send(text: "late", screen: nil)))
    }

    @Test func invalidMessagesAreRefusedWithoutWaiting() async throws {
        let bus = try MessageBus()
        let channel = ProducerChannel()
        channel.attach(to: bus)
        let huge = String(repeating: "x", count: Message.maximumTextBytes + 1)
        let reply = await channel.request(.send(text: huge, screen: nil))
        guard case .error(let error) = reply else {
            Issue.record("accepted: \(reply)")
            return
        }
        #expect(error.code == .textTooLong)
        channel.close()
    }
}

/// Hands a consumer to the one thread that uses it from then on.
final class OwnedConsumer: @unchecked Sendable {
    let consumer: MessageConsumer
    init(_ consumer: MessageConsumer) { self.consumer = consumer }
}
