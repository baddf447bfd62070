import Messaging

/// `messages` sent through a real bus (one producer, its ring and slab) and drained on the other side: what a method's
/// tests check its slot encoding with. Nil when a ring refused one.
func throughARing(_ messages: [Message]) throws -> [Message]? {
    let bus = try MessageBus()
    let consumer = bus.makeConsumer()
    let producer = bus.makeProducer(capacity: max(messages.count, 1))
    for message in messages where producer.trySend(message) != .enqueued { return nil }
    var received: [Message] = []
    _ = consumer.drain { received.append($0.message) }
    return received
}
