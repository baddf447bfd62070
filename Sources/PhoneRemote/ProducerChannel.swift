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

/// The remote's way into the bus: one ``RequestIntake`` shared by every connection, whose tags are the waiting
/// requests' continuations (nil for a message posted without waiting): the display thread's reply resumes the task
/// that sent it.
public final class ProducerChannel: MessageSender {
    private typealias Waiter = CheckedContinuation<Reply, Never>?
    private let intake = Mutex<RequestIntake<Waiter>?>(nil)
    /// Where `frame.shown` events go, to become the receipts of this producer's sends; nil: no events wanted.
    private let receipts: ReceiptBook?

    public init(receipts: ReceiptBook? = nil) {
        self.receipts = receipts
    }

    /// Events only while a receipt is owed: otherwise the display thread need not build them for this producer.
    public var wantsEvents: Bool { receipts?.wantsEvents ?? false }

    /// Makes the producer. Call once, before any request.
    public func attach(to bus: MessageBus, capacity: Int = 256) {
        let receipts = receipts
        let made = RequestIntake<Waiter>(
            bus: bus, capacity: capacity,
            outlet: .init(
                reply: { waiter, reply in waiter?.resume(returning: reply) },
                wantsEvents: { receipts?.wantsEvents ?? false }, publish: { receipts?.take($0) }))
        intake.withLock { $0 = made }
    }

    public func request(_ message: Message, requestID: String?) async -> Reply {
        await withCheckedContinuation { continuation in
            guard let intake = intake.withLock({ $0 }) else {
                continuation.resume(returning: .error(MessageError(.busy, "the remote is stopping")))
                return
            }
            // Not enqueued: nothing else holds the continuation.
            if let refusal = intake.submit(message, requestID: requestID, tag: continuation) {
                continuation.resume(returning: .error(refusal))
            }
        }
    }

    /// Enqueues `message` now, in order with every other, without waiting for its reply (which is dropped).
    /// - Returns: false when the ring is full, the message is invalid, or the channel is closed.
    @discardableResult
    public func post(_ message: Message) -> Bool {
        guard let intake = intake.withLock({ $0 }) else { return false }
        return intake.submit(message, requestID: nil, tag: nil) == nil
    }

    /// Closes the producer and answers every waiting request `busy` (the display thread will not answer them once
    /// the loop has ended). Idempotent.
    public func close() {
        let orphans = intake.withLock { intake in
            defer { intake = nil }
            return intake?.close() ?? []
        }
        for waiter in orphans { waiter?.resume(returning: .error(MessageError(.busy, "the remote stopped"))) }
    }

    /// Messages this producer had refused because its ring was full.
    public var rejectedFull: Int { intake.withLock { $0 }?.rejectedFull ?? 0 }
}
