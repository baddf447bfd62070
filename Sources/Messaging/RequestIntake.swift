import Synchronization

/// One transport's way into the display thread: its producer's ring, and the queue of what each request in the ring
/// belongs to. Every transport (the local socket, the fleet link, the phone remote, a page) passes its requests
/// through its ``RequestGate`` and into one of these; what is left in the transport is its own I/O.
///
/// `Tag` is what the transport needs to answer a request (a connection and a place in its reply order, the
/// request's envelope, a waiting task). The display thread answers each producer's messages in order, one reply
/// each, so tags form a first-in first-out queue: ``submit(_:requestID:tag:)`` pushes under the same lock as the
/// ring's push, and ``deliver(_:)`` (display thread) pops the oldest and hands the reply and its tag to the outlet.
///
/// Thread-safe: any number of threads may submit (the lock makes them one producer to the single-producer ring).
public final class RequestIntake<Tag: Sendable>: ReplySink, Sendable {
    /// Where the display thread's answers go. Called on the display thread: queue and wake, never block.
    public struct Outlet: Sendable {
        public var reply: @Sendable (Tag, Reply) -> Void
        public var wantsEvents: @Sendable () -> Bool
        public var publish: @Sendable (Event) -> Void

        public init(
            reply: @escaping @Sendable (Tag, Reply) -> Void, wantsEvents: @escaping @Sendable () -> Bool = { false },
            publish: @escaping @Sendable (Event) -> Void = { _ in }
        ) {
            self.reply = reply
            self.wantsEvents = wantsEvents
            self.publish = publish
        }
    }

    /// The outcome of ``take(_:through:tag:)``.
    public enum Outcome: Sendable {
        /// In the ring; the reply comes through the outlet with its tag.
        case enqueued
        /// `events.subscribe`, which the transport answers itself.
        case subscribe(Envelope)
        /// Refused: answer it now, in its envelope.
        case answer(Reply, Envelope)
    }

    private struct State {
        var producer: MessageProducer?
        var waiting = FIFO<Tag>()
    }

    /// The ring's capacity, named in the `busy` refusal.
    public let capacity: Int
    private let outlet: Outlet
    private let state: Mutex<State>

    /// Makes the producer (its sink is this intake). Close it with ``close()``: the producer holds the intake.
    public init(bus: MessageBus, capacity: Int, textCapacity: Int? = nil, outlet: Outlet) {
        self.capacity = capacity
        self.outlet = outlet
        state = Mutex(State())
        let producer =
            if let textCapacity {
                bus.makeProducer(capacity: capacity, textCapacity: textCapacity, sink: self)
            } else {
                bus.makeProducer(capacity: capacity, sink: self)
            }
        state.withLock { $0.producer = producer }
    }

    /// The whole path for one request: `gate`, then the ring. `tag` makes the request's tag from its envelope.
    public func take(_ bytes: [UInt8], through gate: RequestGate, tag: (Envelope) -> Tag) -> Outcome {
        switch gate.admit(bytes) {
        case .refused(let error, let envelope):
            return .answer(.error(error), envelope)
        case .subscribe(let envelope):
            return .subscribe(envelope)
        case .message(let message, let envelope, let requestID):
            if let refusal = submit(message, requestID: requestID, tag: tag(envelope)) {
                return .answer(.error(refusal), envelope)
            }
            return .enqueued
        }
    }

    /// Sends a request that passed the gate. - Returns: nil once enqueued; otherwise the refusal to answer with
    /// (the ring is full, the message is invalid, or the intake is closed).
    public func submit(_ message: Message, requestID: String?, tag: Tag) -> MessageError? {
        let (refusal, enqueuedOn) = state.withLock { state -> (MessageError?, MessageProducer?) in
            guard let producer = state.producer else {
                return (MessageError(.busy, "this way to the display thread is closing; try again"), nil)
            }
            switch producer.tryEnqueue(message, requestID: requestID) {
            case .enqueued:
                state.waiting.push(tag)
                return (nil, producer)
            case .full:
                return (MessageError(.busy, "the queue to the display thread is full (\(capacity)); try again"), nil)
            case .rejected(let error):
                return (error, nil)
            }
        }
        // Woken once the lock is free: the display thread takes it in `deliver`.
        enqueuedOn?.wakeConsumer()
        return refusal
    }

    /// Requests in the ring not yet answered.
    public var waiting: Int { state.withLock { $0.waiting.count } }

    /// Messages the producer refused because its ring was full.
    public var rejectedFull: Int { state.withLock { $0.producer?.statistics.rejectedFull ?? 0 } }

    /// Closes the producer (the display thread drains what is in the ring and retires it, answering nobody) and
    /// returns the tags of the requests that will not be answered. Idempotent.
    public func close() -> [Tag] {
        state.withLock { state in
            state.producer?.close()
            state.producer = nil
            var orphans: [Tag] = []
            while let tag = state.waiting.popFirst() { orphans.append(tag) }
            return orphans
        }
    }

    // MARK: ReplySink (display thread)

    public func deliver(_ reply: Reply) {
        let tag = state.withLock { $0.waiting.popFirst() }
        // A reply to nothing: the intake was closed and its tags handed back; whoever took them answered them.
        if let tag { outlet.reply(tag, reply) }
    }

    public var wantsEvents: Bool { outlet.wantsEvents() }

    public func publish(_ event: Event) { outlet.publish(event) }
}
