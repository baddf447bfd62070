import Messaging
import Synchronization

/// Sends a message to the display thread and waits for its reply.
public protocol MessageSender: Sendable {
    /// - Parameter requestID: the id the display thread keeps the reply under (``MessageProducer/trySend(_:requestID:)``):
    ///   a request with an id answered before is answered the same and not applied again.
    func request(_ message: Message, requestID: String?) async -> Reply
}

extension MessageSender {
    public func request(_ message: Message) async -> Reply { await request(message, requestID: nil) }
}

/// The remote's way into the bus: one ``MessageProducer`` shared by every connection (sends are serialised by a
/// mutex, so the single-producer ring sees one producer) and the ``ReplySink`` that pairs replies with requests.
///
/// The display thread answers each producer's messages in order, one reply each, so the waiting requests form a
/// queue: a message enqueued in the ring appends its continuation under the same lock, and ``deliver(_:)`` resumes
/// the oldest.
public final class ProducerChannel: ReplySink, MessageSender {
    private struct State {
        var producer: MessageProducer?
        var waiting: [CheckedContinuation<Reply, Never>?] = []
        var head = 0
    }
    private let state = Mutex(State())
    /// Where `frame.shown` events go, to become the receipts of this producer's sends; nil: no events wanted.
    private let receipts: ReceiptBook?

    public init(receipts: ReceiptBook? = nil) {
        self.receipts = receipts
    }

    /// Events only while a receipt is owed: otherwise the display thread need not build them for this producer.
    public var wantsEvents: Bool { receipts?.wantsEvents ?? false }

    public func publish(_ event: Event) { receipts?.take(event) }

    /// Makes the producer (its sink is this channel). Call once, before any request.
    public func attach(to bus: MessageBus, capacity: Int = 256) {
        let producer = bus.makeProducer(capacity: capacity, sink: self)
        state.withLock { $0.producer = producer }
    }

    public func request(_ message: Message, requestID: String?) async -> Reply {
        await withCheckedContinuation { continuation in
            let refusal: Reply? = state.withLock { state in
                guard let producer = state.producer else {
                    return .error(MessageError(.busy, "the remote is stopping"))
                }
                switch producer.trySend(message, requestID: requestID) {
                case .enqueued:
                    state.waiting.append(continuation)
                    return nil
                case .full:
                    return .error(MessageError(.busy, "the display is busy; try again"))
                case .rejected(let error):
                    return .error(error)
                }
            }
            if let refusal { continuation.resume(returning: refusal) }
        }
    }

    /// Enqueues `message` now, in order with every other, without waiting for its reply (which is dropped).
    /// - Returns: false when the ring is full, the message is invalid, or the channel is closed.
    @discardableResult
    public func post(_ message: Message) -> Bool {
        state.withLock { state in
            guard let producer = state.producer, producer.trySend(message) == .enqueued else { return false }
            state.waiting.append(nil)
            return true
        }
    }

    public func deliver(_ reply: Reply) {
        let next: CheckedContinuation<Reply, Never>?? = state.withLock { state in
            guard state.head < state.waiting.count else { return nil }
            let continuation = state.waiting[state.head]
            state.head += 1
            if state.head > 64 && state.head * 2 > state.waiting.count {
                state.waiting.removeFirst(state.head)
                state.head = 0
            }
            return continuation
        }
        if case .some(.some(let continuation)) = next { continuation.resume(returning: reply) }
    }

    /// Closes the producer and answers every waiting request `busy` (the display thread will not answer them once
    /// the loop has ended). Idempotent.
    public func close() {
        let orphans = state.withLock { state in
            state.producer?.close()
            state.producer = nil
            defer {
                state.waiting = []
                state.head = 0
            }
            return state.waiting[state.head...].compactMap { $0 }
        }
        for continuation in orphans {
            continuation.resume(returning: .error(MessageError(.busy, "the remote stopped")))
        }
    }

    /// Messages this producer had refused because its ring was full.
    public var rejectedFull: Int { state.withLock { $0.producer?.statistics.rejectedFull ?? 0 } }
}
