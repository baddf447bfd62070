import Testing

@testable import Outputs

/// Items with a window (`from`, `until`): outside it an item is out of the cycle, the others close up, and its
/// opening and closing are switches.
@Suite struct PlaylistWindowTests {
    // a 10 s, b 5 s (from 2000 until 3000), c 15 s.
    static let playlist = Playlist(
        items: [
            .init(source: "/a.png", seconds: 10), .init(source: "/b.png", seconds: 5, from: 2000, until: 3000),
            .init(source: "/c.png", seconds: 15),
        ], epoch: 1000)

    @Test func anItemOutsideItsWindowIsOutOfTheCycle() {
        let p = Self.playlist
        // Before its window: a and c only, a 25 s cycle; the switch at 2000 is the window opening.
        #expect(p.playable(at: 1500) == [0, 2])
        #expect(p.position(at: 1000) == (0, 1000, 1010))
        #expect(p.position(at: 1010) == (2, 1010, 1025))
        #expect(p.position(at: 1990) == (2, 1985, 2000))
        // Inside: the full 30 s cycle from the epoch (its 34th cycle began at 1990).
        #expect(p.playable(at: 2500) == [0, 1, 2])
        #expect(p.position(at: 2003) == (1, 2000, 2005))
        #expect(p.position(at: 2011) == (2, 2005, 2020))
        // After it: closed up again.
        #expect(p.playable(at: 3000) == [0, 2])
        #expect(p.position(at: 3000).index != 1)
    }

    @Test func stepsGoRoundThePlayableItemsOnly() {
        let p = Self.playlist
        #expect(p.taking(.next, at: 1003).position(at: 1003).index == 2)
        #expect(p.taking(.previous, at: 1003).position(at: 1003).index == 2)
        // At 1991 c plays and b's window has not opened: next is a, not b.
        #expect(p.position(at: 1991).index == 2)
        #expect(p.taking(.next, at: 1991).position(at: 1991).index == 0)
        #expect(p.taking(.next, at: 2003).position(at: 2003).index == 2)
        #expect(p.taking(.previous, at: 2003).position(at: 2003).index == 0)
    }

    @Test func withNoItemInItsWindowThePositionSaysSo() {
        let p = Playlist(items: [.init(source: "/a.png", seconds: 10, until: 500)], epoch: 0)
        let position = p.position(at: 600)
        #expect(!p.items[position.index].isPlayable(at: 600))
        #expect(position.next == .infinity)
    }

    @Test func aWindowThatEndsBeforeItBeginsIsRefused() {
        #expect(
            Playlist.problem(items: [.init(source: "/a.png", seconds: 1, from: 10, until: 10)])
                == "item 1: from must come before until")
    }
}
