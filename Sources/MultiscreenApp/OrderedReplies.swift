import Messaging

/// Replies owed to each producer, delivered in the order of its requests even when one of them is answered later (a
/// `media.show` whose file is read off the display thread). A transport pairs replies with requests by position
/// (``ReplySink/deliver(_:)``: "the reply to the oldest request not yet answered"), so a reply that overtook a
/// waiting one would answer the wrong request: while a producer has a reply on hold, its later replies queue behind it.
///
/// Display thread only.
final class OrderedReplies {
    /// A reply on hold, to be given with ``settle(_:with:)``.
    struct Ticket: Hashable {
        fileprivate let producer: Int
        fileprivate let number: Int
    }

    private struct Queue {
        let sink: any ReplySink
        /// Replies in request order; nil for one on hold.
        var entries: [(number: Int, reply: Reply?)] = []
        var nextNumber = 0
    }

    private var queues: [Int: Queue] = [:]

    /// Replies on hold now, all producers together.
    var held: Int { queues.values.reduce(0) { $0 + $1.entries.count { $0.reply == nil } } }

    /// Delivers `reply` now, or after the replies this producer has on hold.
    func deliver(_ reply: Reply, to sink: (any ReplySink)?, producer: Int) {
        guard let sink else { return }
        guard queues[producer] != nil else {
            sink.deliver(reply)
            return
        }
        queues[producer]!.entries.append((queues[producer]!.nextNumber, reply))
        queues[producer]!.nextNumber += 1
    }

    /// Holds this producer's next reply until ``settle(_:with:)``. Nil when nobody reads its replies.
    func hold(for sink: (any ReplySink)?, producer: Int) -> Ticket? {
        guard let sink else { return nil }
        var queue = queues[producer] ?? Queue(sink: sink)
        let ticket = Ticket(producer: producer, number: queue.nextNumber)
        queue.entries.append((queue.nextNumber, nil))
        queue.nextNumber += 1
        queues[producer] = queue
        return ticket
    }

    /// Gives the reply on hold, then every reply queued behind it up to the next one on hold.
    func settle(_ ticket: Ticket, with reply: Reply) {
        guard var queue = queues[ticket.producer],
            let index = queue.entries.firstIndex(where: { $0.number == ticket.number })
        else { return }
        queue.entries[index].reply = reply
        while let first = queue.entries.first, let ready = first.reply {
            queue.sink.deliver(ready)
            queue.entries.removeFirst()
        }
        queues[ticket.producer] = queue.entries.isEmpty ? nil : queue
    }
}
