import Foundation
import Testing

@testable import Screens

@Suite struct MessageLogTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func newestFirstWithIncreasingIds() {
        var log = MessageLog()
        let first = log.append(text: "one", screen: nil, at: t0)
        let second = log.append(text: "two", screen: "DP-1", at: t0.addingTimeInterval(1))
        #expect(first.id == 1)
        #expect(second.id == 2)
        #expect(log.newestFirst.map(\.text) == ["two", "one"])
        #expect(log.newestFirst.first?.receivedAt == t0.addingTimeInterval(1))
        #expect(log.capacity == 200)
    }

    @Test func boundedToCapacityDroppingTheOldest() {
        var log = MessageLog(capacity: 3)
        for i in 1...10 { log.append(text: "m\(i)", screen: nil, at: t0) }
        #expect(log.count == 3)
        #expect(log.newestFirst.map(\.text) == ["m10", "m9", "m8"])
        #expect(log.newestFirst.map(\.id) == [10, 9, 8], "ids keep increasing past the bound")
    }

    @Test func messagesForAScreenIncludeBroadcasts() {
        var log = MessageLog()
        log.append(text: "all", screen: nil, at: t0)
        log.append(text: "dp1", screen: "DP-1", at: t0)
        log.append(text: "dp2", screen: "DP-2", at: t0)
        log.append(text: "all again", screen: nil, at: t0)
        #expect(log.messages(for: "DP-1").map(\.text) == ["all again", "dp1", "all"])
        #expect(log.messages(for: "DP-3").map(\.text) == ["all again", "all"])
    }

    @Test func restoringKeepsTheNewestAndContinuesIds() {
        let old = (1...5).map { LoggedMessage(id: UInt64($0), text: "m\($0)", receivedAt: t0, screen: nil) }
        var log = MessageLog(capacity: 2, restoring: old.reversed())
        #expect(log.newestFirst.map(\.id) == [5, 4])
        #expect(log.append(text: "new", screen: nil, at: t0).id == 6)
        #expect(MessageLog(capacity: 0).capacity == 1)
    }
}
