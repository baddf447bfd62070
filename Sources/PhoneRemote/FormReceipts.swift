import Synchronization

/// Receipts for messages sent by the page without JavaScript (a plain form post), kept until the page asks for
/// them: it cannot be pushed to, so the page it gets after Send refreshes itself (a `<meta http-equiv="refresh">`,
/// which the Content-Security-Policy allows) and reads how many screens have shown the message so far.
///
/// Filled from ``ReceiptBook`` deliveries (on the display thread: cheap, never blocking), read by the routes. Only
/// the newest ``capacity`` sends are kept; a receipt is shown only to the session that sent the message.
final class FormReceipts: Sendable {
    struct Entry: Equatable, Sendable {
        let session: Int
        /// The hub's clock when the message was accepted.
        let sentAt: Double
        var screens = 0
    }

    /// The owner under which form sends are watched in the ``ReceiptBook`` (WebSocket connections count from 1).
    static let owner = 0
    static let capacity = 64
    private let entries = Mutex<[UInt64: Entry]>([:])

    /// Message `id` was accepted from a form post of session `session`.
    func sent(id: UInt64, session: Int, at now: Double) {
        entries.withLock { entries in
            entries[id] = Entry(session: session, sentAt: now)
            if entries.count > Self.capacity, let oldest = entries.min(by: { $0.value.sentAt < $1.value.sentAt }) {
                entries[oldest.key] = nil
            }
        }
    }

    /// A screen showed one of them.
    func shown(_ receipt: ShownReceipt) {
        entries.withLock { entries in
            guard var entry = entries[receipt.id] else { return }
            entry.screens = max(entry.screens, receipt.screens)
            entries[receipt.id] = entry
        }
    }

    /// What is known of message `id`, when `session` sent it.
    func entry(id: UInt64, session: Int) -> Entry? {
        entries.withLock { entries in entries[id].flatMap { $0.session == session ? $0 : nil } }
    }
}
