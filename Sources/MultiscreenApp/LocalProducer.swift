import Logging
import Messaging

/// The display thread's own producer, for the controller UI's Send: its messages take the bus like every other
/// producer's (one path, in order, with their enqueue stamps). SPSC with itself, so it needs no lock either; its
/// replies go to the log (``LocalReplies``).
final class LocalProducer {
    private let producer: MessageProducer
    private let logger: Logger

    init(bus: MessageBus, logger: Logger) {
        producer = bus.makeProducer(capacity: 256, sink: LocalReplies(logger: logger))
        self.logger = logger
    }

    /// Enqueues `message`; when the bus cannot take it, it is dropped and the log says why (the person sends again).
    func send(_ message: Message) {
        switch producer.trySend(message) {
        case .enqueued: break
        case .full: logger.warning("message not sent: the bus is full (counted as rejected-full); try again")
        case .rejected(let error): logger.warning("message not sent: \(error.message)")
        }
    }

    func close() { producer.close() }
}
