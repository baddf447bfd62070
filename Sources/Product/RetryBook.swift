import Messaging

/// The replies given to requests that carried a client's request id, kept for ``window``: a request whose id is
/// here is answered with the reply it got the first time and not applied again, so a client that lost a reply (a
/// CLI that timed out, a fleet operator whose acknowledgement never came, a phone on a flaky network) can retry
/// safely. Bounded in time and in count (the oldest go first), so it costs at most ``capacity`` small replies.
struct RetryBook {
    static let window: UInt64 = 600 * 1_000_000_000
    static let capacity = 4096

    private var replies: [String: (reply: Reply, at: UInt64)] = [:]
    /// Ids in the order they were first answered; `head` is the oldest still kept.
    private var order: [String] = []
    private var head = 0

    /// The first reply to `id`, if it was answered within the window.
    mutating func reply(to id: String, now: UInt64) -> Reply? {
        forgetExpired(now: now)
        return replies[id]?.reply
    }

    /// No reply is kept (after ``forgetExpired(now:)``).
    var isEmpty: Bool { replies.isEmpty }

    mutating func remember(_ reply: Reply, for id: String, now: UInt64) {
        guard replies[id] == nil else { return }
        replies[id] = (reply, now)
        order.append(id)
        while replies.count > Self.capacity { forgetOldest() }
    }

    mutating func forgetExpired(now: UInt64) {
        while head < order.count, let kept = replies[order[head]], now &- kept.at > Self.window { forgetOldest() }
    }

    private mutating func forgetOldest() {
        replies[order[head]] = nil
        head += 1
        // Compact once half the array is forgotten ids: amortised O(1) per id.
        if head > 64 && head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }
}
