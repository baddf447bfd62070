import Foundation
import Testing

@testable import Messaging

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Message bus: fan-in, out-of-line text, full rings, the sleep protocol")
struct MessageBusTests {
    @Test func messagesArriveWithTheirTextAndTimestamps() throws {
        let bus = try MessageBus()
        let consumer = bus.makeConsumer()
        let producer = bus.makeProducer(capacity: 8)
        let before = MonotonicClock.nanoseconds()
        for message in MessageCodecTests.messages { #expect(producer.trySend(message) == .enqueued) }
        var received: [ReceivedMessage] = []
        #expect(consumer.drain { received.append($0) } == MessageCodecTests.messages.count)
        #expect(received.map(\.message) == MessageCodecTests.messages)
        #expect(received.allSatisfy { $0.producerID == producer.id && $0.enqueuedAt >= before })
        #expect(zip(received, received.dropFirst()).allSatisfy { $0.enqueuedAt <= $1.enqueuedAt })
        #expect(consumer.drain { _ in } == 0)
    }

    /// A request id travels with its message, beside the screen name, and takes no room from it.
    @Test func requestIDsTravelWithTheirMessages() throws {
        let bus = try MessageBus()
        let consumer = bus.makeConsumer()
        let producer = bus.makeProducer(capacity: 8)
        let id = "cli-" + String(repeating: "f", count: 60)
        #expect(producer.trySend(.send(text: "a", screen: "HDMI-A-1", ttl: nil), requestID: id) == .enqueued)
        #expect(producer.trySend(.send(text: "b", screen: nil, ttl: nil), requestID: "r") == .enqueued)
        #expect(producer.trySend(.status) == .enqueued)
        #expect(
            producer.trySend(.status, requestID: "has space")
                == .rejected(
                    MessageError(
                        .invalidRequest, "\"requestId\" must be 1 to 64 printable ASCII characters without spaces")))
        var received: [ReceivedMessage] = []
        _ = consumer.drain { received.append($0) }
        #expect(
            received.map(\.message) == [
                .send(text: "a", screen: "HDMI-A-1", ttl: nil), .send(text: "b", screen: nil, ttl: nil), .status,
            ])
        #expect(received.map(\.requestID) == [id, "r", nil])
    }

    /// A full ring, or a full text slab, is an explicit `.full`, counted, and the message is not half-enqueued.
    @Test func fullIsExplicitAndCounted() throws {
        let bus = try MessageBus()
        let consumer = bus.makeConsumer()
        let producer = bus.makeProducer(capacity: 2, textCapacity: 256 * 1024)
        #expect(producer.trySend(.status) == .enqueued)
        #expect(producer.trySend(.outputs) == .enqueued)
        #expect(producer.trySend(.closeCard(screen: "left")) == .full)
        var received: [Message] = []
        consumer.drain { received.append($0.message) }
        #expect(received == [.status, .outputs])
        #expect(producer.statistics == RingStatistics(enqueued: 2, drained: 2, rejectedFull: 1, maxDepth: 2))

        // The text slab fills before the ring: 256 KiB holds three 64 KiB texts with their screen names, not four.
        let texts = bus.makeProducer(capacity: 8, textCapacity: 256 * 1024)
        let big = Message.send(text: String(repeating: "b", count: Message.maximumTextBytes), screen: "s")
        for _ in 0..<3 { #expect(texts.trySend(big) == .enqueued) }
        #expect(texts.trySend(big) == .full)
        #expect(texts.trySend(.status) == .enqueued)  // a message without text still fits
        received = []
        consumer.drain { received.append($0.message) }
        #expect(received == [big, big, big, .status])
        for _ in 0..<3 { #expect(texts.trySend(big) == .enqueued) }  // freed by the drain, reused across the wrap
        consumer.drain { received.append($0.message) }
        #expect(received == [big, big, big, .status, big, big, big])
        #expect(
            texts.trySend(.send(text: String(repeating: "b", count: Message.maximumTextBytes + 1), screen: nil))
                == .rejected(MessageError(.textTooLong, "text is 65537 UTF-8 bytes, the limit is 65536")))
        #expect(texts.statistics == RingStatistics(enqueued: 7, drained: 7, rejectedFull: 1, maxDepth: 4))
    }

    @Test func batchSendStopsAtFullAndKeepsTheRest() throws {
        let bus = try MessageBus()
        let consumer = bus.makeConsumer()
        let producer = bus.makeProducer(capacity: 4)
        let messages = (0..<6).map { Message.send(text: "m\($0)", screen: nil) }
        #expect(producer.trySend(contentsOf: messages) == 4)
        var received: [Message] = []
        consumer.drain { received.append($0.message) }
        #expect(producer.trySend(contentsOf: messages[4...]) == 2)
        consumer.drain { received.append($0.message) }
        #expect(received == messages)
        #expect(producer.statistics.rejectedFull == 1)
        // An invalid message ends a batch as a rejection, not as "full".
        let tooLong = Message.send(text: String(repeating: "x", count: Message.maximumTextBytes + 1), screen: nil)
        #expect(producer.trySend(contentsOf: [.status, tooLong, .status]) == 1)
        #expect(producer.statistics.rejectedFull == 1)
    }

    /// Several producer threads into one consumer: each producer's messages arrive complete and in order, and
    /// the text slab wraps many times on the way.
    @Test func fanInKeepsEachProducersOrder() throws {
        let bus = try MessageBus()
        let consumer = bus.makeConsumer()
        let producers = 3
        let perProducer = 20_000
        var joins: [() -> Void] = []
        for _ in 0..<producers {
            let producer = bus.makeProducer(capacity: 64, textCapacity: 256 * 1024)
            joins.append(
                startThread {
                    for index in 0..<perProducer {
                        let text = "\(producer.id):\(index)" + String(repeating: "·", count: index % 50)
                        let outcome = producer.send(
                            .send(text: text, screen: index % 2 == 0 ? "even" : nil), until: .max)
                        precondition(outcome == .enqueued)
                    }
                    producer.close()
                })
        }
        var next = [Int: Int]()
        var mismatches = 0
        var total = 0
        while total < producers * perProducer {
            total += consumer.drain { received in
                let index = next[received.producerID, default: 0]
                let expected = "\(received.producerID):\(index)" + String(repeating: "·", count: index % 50)
                if received.message != .send(text: expected, screen: index % 2 == 0 ? "even" : nil) { mismatches += 1 }
                next[received.producerID] = index + 1
            }
            consumer.waitForMessages(timeoutMilliseconds: 100)
        }
        for join in joins { join() }
        #expect(mismatches == 0)
        #expect(next.values.sorted() == Array(repeating: perProducer, count: producers))
        // Closed and drained producers are forgotten.
        consumer.drain { _ in }
        #expect(bus.statistics == RingStatistics())
    }

    /// The sleep protocol: a consumer that announced sleep is woken by the next message; a consumer that is awake
    /// costs producers no eventfd write.
    @Test func producersWriteTheEventfdOnlyForASleepingConsumer() throws {
        let bus = try MessageBus()
        let consumer = bus.makeConsumer()
        let producer = bus.makeProducer()
        for _ in 0..<100 { #expect(producer.trySend(.status) == .enqueued) }
        consumer.drain { _ in }
        #expect(bus.wakeupsSent == 0)

        #expect(consumer.prepareToSleep())
        var descriptor = pollfd(fd: consumer.wakeupFileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&descriptor, 1, 0) == 0)
        #expect(producer.trySend(.outputs) == .enqueued)
        #expect(producer.trySend(.outputs) == .enqueued)
        #expect(poll(&descriptor, 1, 0) == 1)
        #expect(bus.wakeupsSent == 1)  // the second send saw the flag already cleared by the first
        consumer.didWake()
        #expect(poll(&descriptor, 1, 0) == 0)  // didWake consumed the eventfd's count
        #expect(consumer.drain { _ in } == 2)

        // Announcing sleep with a message pending withdraws the announcement: drain instead of sleeping.
        #expect(producer.trySend(.status) == .enqueued)
        #expect(!consumer.prepareToSleep())
        #expect(producer.trySend(.status) == .enqueued)
        #expect(bus.wakeupsSent == 1)
    }

    /// The eventfd writes counted by the kernel, not by the bus itself: `syscw` of the producer thread in
    /// `/proc/thread-self/io`. A consumer that sleeps between bursts costs one write per burst; one that is awake
    /// (draining as the producer sends) costs none.
    @Test func theKernelCountsOneWritePerBurstToASleepingConsumer() throws {
        let bus = try MessageBus()
        let consumer = bus.makeConsumer()
        let producer = bus.makeProducer()
        func writeSyscalls() throws -> Int {
            let io = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
            let line = try #require(io.split(separator: "\n").first { $0.hasPrefix("syscw:") })
            return try #require(Int(String(line.dropFirst("syscw:".count)).trimmingCharacters(in: .whitespaces)))
        }
        // Asleep before every burst of 10: one write each.
        var sleepingWrites = 0
        for _ in 0..<20 {
            #expect(consumer.prepareToSleep())
            let before = try writeSyscalls()
            for _ in 0..<10 { #expect(producer.trySend(.status) == .enqueued) }
            sleepingWrites += try writeSyscalls() - before
            consumer.didWake()
            #expect(consumer.drain { _ in } == 10)
        }
        #expect(sleepingWrites == 20, "one eventfd write per burst to a sleeping consumer, counted by the kernel")
        // Awake: 1000 messages, no write at all.
        let before = try writeSyscalls()
        for _ in 0..<1000 {
            #expect(producer.trySend(.status) == .enqueued)
            consumer.drain { _ in }
        }
        #expect(try writeSyscalls() - before == 0, "no syscall per message while the consumer is awake")
    }

    /// A consumer blocked in poll is woken by a producer on another thread.
    @Test func sleepingConsumerIsWokenAcrossThreads() throws {
        let bus = try MessageBus()
        let consumer = bus.makeConsumer()
        let producer = bus.makeProducer()
        let join = startThread {
            for index in 0..<50 {
                usleep(1_000)
                precondition(producer.trySend(.send(text: "\(index)", screen: nil)) == .enqueued)
            }
        }
        var received = 0
        var sleeps = 0
        while received < 50 {
            received += consumer.drain { _ in }
            if received < 50 {
                #expect(consumer.waitForMessages(timeoutMilliseconds: 5_000), "a wakeup was lost")
                sleeps += 1
            }
        }
        join()
        #expect(sleeps > 0 && bus.wakeupsSent > 0 && bus.wakeupsSent <= 50)
    }
}
