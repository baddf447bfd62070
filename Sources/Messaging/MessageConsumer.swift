#if canImport(Glibc)
    import Glibc
#endif

/// The display thread's side of a ``MessageBus``. Not `Sendable`: it belongs to that thread.
///
/// The display loop:
/// ```swift
/// while running {
///     consumer.drain { apply($0.message) }      // everything available, in order
///     renderIfChanged()                         // once for the whole batch: bursts coalesce into one frame
///     if consumer.prepareToSleep() {            // announced and re-checked: nothing is pending
///         poll([wayland fd, consumer.wakeupFileDescriptor], ...)
///         consumer.didWake()                    // whatever woke us
///     }                                         // else: a message slipped in, loop and drain it
/// }
/// ```
public final class MessageConsumer {
    private let bus: MessageBus
    private var producers: [MessageProducer] = []
    private var knownGeneration = -1

    init(bus: MessageBus) { self.bus = bus }

    /// Readable (`POLLIN`) when a producer has woken the consumer. Owned by the bus: do not close it.
    public var wakeupFileDescriptor: Int32 { bus.wakeup.fileDescriptor }

    /// Hands every message available now to `apply`: each producer's messages in the order it sent them, producer
    /// after producer. Then frees their slots and text. - Returns: how many messages were applied.
    @discardableResult
    public func drain(_ apply: (ReceivedMessage) -> Void) -> Int {
        refreshProducers()
        var total = 0
        var retired: [MessageProducer] = []
        for producer in producers {
            // Read `closed` before looking at the ring: a close after the last send then proves the ring is final.
            let closed = producer.isClosed
            let slab = producer.slab
            var end: UInt? = nil
            let id = producer.id
            let sink = producer.sink
            total += producer.ring.drain { slot in
                apply(
                    ReceivedMessage(
                        message: slot.message(in: slab), enqueuedAt: slot.enqueuedAt, producerID: id, replyTo: sink,
                        requestID: slot.requestID(in: slab)))
                end = slot.textEnd
            }
            if let end { slab.release(upTo: end) }
            if closed && !producer.ring.hasElementsForConsumer { retired.append(producer) }
        }
        if !retired.isEmpty { bus.remove(retired) }
        return total
    }

    /// Tells `event` to every producer's sink that wants events (each sink once, however many producers share it).
    public func publish(_ event: Event) {
        refreshProducers()
        var told: Set<ObjectIdentifier> = []
        for producer in producers {
            guard let sink = producer.sink, sink.wantsEvents, told.insert(ObjectIdentifier(sink)).inserted else {
                continue
            }
            sink.publish(event)
        }
    }

    /// Whether any producer's sink wants events now: lets the caller skip building events nobody reads (the
    /// per-frame `frame.shown`).
    public var hasEventListeners: Bool {
        refreshProducers()
        return producers.contains { $0.sink?.wantsEvents == true }
    }

    /// Announces that the display thread is about to sleep, then re-checks every ring.
    /// - Returns: true if the caller may now poll ``wakeupFileDescriptor`` (and must call ``didWake()`` after);
    ///   false if a message arrived meanwhile: the announcement is withdrawn, drain again instead of sleeping.
    public func prepareToSleep() -> Bool {
        refreshProducers()
        bus.wakeup.announceSleep()
        for producer in producers where producer.ring.hasElementsForConsumer {
            bus.wakeup.withdrawSleep()
            return false
        }
        return true
    }

    /// After the poll returned, for any reason: withdraws the announcement and resets the eventfd.
    public func didWake() { bus.wakeup.clearSleep() }

    /// For a display thread that waits on nothing else: `prepareToSleep`, poll the eventfd alone, `didWake`.
    /// - Parameter timeoutMilliseconds: as `poll(2)`; -1 waits indefinitely.
    /// - Returns: false on timeout.
    @discardableResult
    public func waitForMessages(timeoutMilliseconds: Int32) -> Bool {
        guard prepareToSleep() else { return true }
        var descriptor = pollfd(fd: wakeupFileDescriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeoutMilliseconds)
        didWake()
        return ready != 0
    }

    private func refreshProducers() {
        let generation = bus.currentGeneration
        if generation != knownGeneration {
            producers = bus.producersSnapshot
            knownGeneration = generation
        }
    }
}
