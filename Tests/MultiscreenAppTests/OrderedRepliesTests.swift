import Messaging
import Synchronization
import Testing

@testable import MultiscreenApp

/// A transport pairs replies with requests by position: a reply held while a file is read must not be overtaken by
/// the replies to that producer's later requests, and other producers must not wait for it.
@Suite struct OrderedRepliesTests {
    final class Sink: ReplySink {
        let received = Mutex<[Reply]>([])
        func deliver(_ reply: Reply) { received.withLock { $0.append(reply) } }
        var replies: [Reply] { received.withLock { $0 } }
    }

    static func reply(_ n: Int) -> Reply { .result(method: .status, result: ["n": .integer(n)]) }

    @Test func aHeldReplyKeepsItsProducersOrderAndNoOneElseWaits() throws {
        let replies = OrderedReplies()
        let (a, b) = (Sink(), Sink())
        replies.deliver(Self.reply(1), to: a, producer: 1)
        let held = try #require(replies.hold(for: a, producer: 1))
        replies.deliver(Self.reply(3), to: a, producer: 1)
        replies.deliver(Self.reply(10), to: b, producer: 2)
        #expect(a.replies == [Self.reply(1)])
        #expect(b.replies == [Self.reply(10)])
        #expect(replies.held == 1)
        replies.settle(held, with: Self.reply(2))
        #expect(a.replies == [Self.reply(1), Self.reply(2), Self.reply(3)])
        #expect(replies.held == 0)
        // Nothing is left queued: the next reply goes straight out.
        replies.deliver(Self.reply(4), to: a, producer: 1)
        #expect(a.replies.count == 4)
    }

    @Test func holdsSettledOutOfOrderComeOutInOrder() throws {
        let replies = OrderedReplies()
        let sink = Sink()
        let first = try #require(replies.hold(for: sink, producer: 7))
        let second = try #require(replies.hold(for: sink, producer: 7))
        replies.deliver(Self.reply(3), to: sink, producer: 7)
        replies.settle(second, with: Self.reply(2))
        #expect(sink.replies.isEmpty)
        replies.settle(first, with: Self.reply(1))
        #expect(sink.replies == [Self.reply(1), Self.reply(2), Self.reply(3)])
        // A producer nobody reads holds nothing.
        #expect(replies.hold(for: nil, producer: 8) == nil)
    }
}
