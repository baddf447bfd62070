import Synchronization

/// Fan-in from any number of producer threads to the display thread: one ``MessageProducer`` (ring + text slab) per
/// producer thread, one ``MessageConsumer`` on the display thread, and the eventfd that wakes it.
///
/// ```swift
/// let bus = try MessageBus()
/// let consumer = bus.makeConsumer()              // display thread
/// let producer = bus.makeProducer(sink: replies) // one per producer thread; replies come back through `replies`
/// producer.trySend(.send(text: "hello", screen: nil))
/// ```
public final class MessageBus: Sendable {
    let wakeup: WakeupSignal
    private let producers = Mutex<[MessageProducer]>([])
    /// Bumped when the set of producers changes, so the consumer re-reads it only then (no lock on the drain path).
    private let generation = Atomic<Int>(0)
    private let nextProducerID = Atomic<Int>(0)
    private let consumerTaken = Atomic<Bool>(false)

    public init() throws(MessageError) {
        wakeup = try WakeupSignal()
    }

    /// A new producer; call it from the thread that will use it (or hand it to exactly one thread).
    ///
    /// - Parameters:
    ///   - capacity: messages in flight before ``MessageProducer/trySend(_:)`` says `.full` (rounded up to a power
    ///     of two). 1024 is several frames of a fast typist and a small fraction of a burst benchmark.
    ///   - textCapacity: bytes of the text slab; at least twice the largest message.
    ///   - sink: where the display thread sends this producer's replies and the events it wants; nil when nobody
    ///     reads them (a benchmark's load generator).
    public func makeProducer(
        capacity: Int = 1024, textCapacity: Int = 1 << 20, sink: (any ReplySink)? = nil
    ) -> MessageProducer {
        let producer = MessageProducer(
            id: nextProducerID.add(1, ordering: .relaxed).oldValue, capacity: capacity,
            textCapacity: textCapacity, wakeup: wakeup, sink: sink)
        producers.withLock { $0.append(producer) }
        generation.add(1, ordering: .releasing)
        return producer
    }

    /// The display thread's side. There is exactly one per bus: the rings are single-consumer.
    public func makeConsumer() -> MessageConsumer {
        precondition(
            consumerTaken.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged,
            "a MessageBus has exactly one consumer")
        return MessageConsumer(bus: self)
    }

    /// The sum of every live producer's counters.
    public var statistics: RingStatistics {
        producers.withLock { producers in
            producers.reduce(into: RingStatistics()) { sum, producer in
                let one = producer.statistics
                sum.enqueued += one.enqueued
                sum.drained += one.drained
                sum.rejectedFull += one.rejectedFull
                sum.maxDepth = max(sum.maxDepth, one.maxDepth)
            }
        }
    }

    /// How many times producers wrote the eventfd (the only syscall on the message path).
    public var wakeupsSent: Int { wakeup.wakeups }

    var currentGeneration: Int { generation.load(ordering: .acquiring) }

    var producersSnapshot: [MessageProducer] { producers.withLock { $0 } }

    func remove(_ retired: [MessageProducer]) {
        producers.withLock { producers in
            producers.removeAll { producer in retired.contains { $0 === producer } }
        }
        generation.add(1, ordering: .releasing)
    }
}
