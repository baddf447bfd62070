import Foundation
import Testing

@testable import Outputs

/// `playlist.next|previous|pause|resume` as values: a step moves where the cycle begins or holds it, and the clock
/// decides everything after it.
@Suite struct PlaylistStepTests {
    static let playlist = Playlist(
        items: [
            .init(source: "/a.png", seconds: 10), .init(source: "/b.png", seconds: 5),
            .init(source: "/c.png", seconds: 15),
        ], epoch: 1000)

    @Test func nextShowsTheNextItemNowAndTheClockGoesOnFromThere() {
        // At 1003 item 0 plays (until 1010); next: item 1 from 1003 to 1008, then item 2.
        let moved = Self.playlist.taking(.next, at: 1003)
        #expect(moved.position(at: 1003) == (1, 1003, 1008))
        #expect(moved.position(at: 1008) == (2, 1008, 1023))
        // From the last item, next wraps to the first.
        let wrapped = Self.playlist.taking(.next, at: 1020)
        #expect(wrapped.position(at: 1020) == (0, 1020, 1030))
    }

    @Test func previousShowsThePreviousItemNowWrappingAround() {
        #expect(Self.playlist.taking(.previous, at: 1012).position(at: 1012) == (0, 1012, 1022))
        #expect(Self.playlist.taking(.previous, at: 1003).position(at: 1003) == (2, 1003, 1018))
    }

    @Test func pauseHoldsTheItemAndResumeGivesItTheRestOfItsTime() {
        // Item 0 has 4 s left at 1006.
        let held = Self.playlist.taking(.pause, at: 1006)
        #expect(held.pausedAt == 1006)
        #expect(held.position(at: 1006) == (0, 1000, .infinity))
        #expect(held.position(at: 5000) == (0, 1000, .infinity))
        // Pausing again changes nothing; resuming 100 s later goes on with those 4 s.
        #expect(held.taking(.pause, at: 1050) == held)
        let going = held.taking(.resume, at: 1106)
        #expect(going.pausedAt == nil)
        #expect(going.position(at: 1106) == (0, 1100, 1110))
        #expect(going.position(at: 1110) == (1, 1110, 1115))
        // Resuming what is not paused changes nothing.
        #expect(Self.playlist.taking(.resume, at: 1106) == Self.playlist)
    }

    @Test func stepsWhilePausedStayHeldOnTheNewItem() {
        let held = Self.playlist.taking(.pause, at: 1006).taking(.next, at: 1200)
        #expect(held.position(at: 1300) == (1, 1200, .infinity))
        #expect(held.taking(.previous, at: 1300).position(at: 1300) == (0, 1300, .infinity))
        // Resumed, the new item has its whole time from there.
        #expect(held.taking(.resume, at: 1400).position(at: 1400) == (1, 1400, 1405))
    }

    /// Screens that switched together and take a step at one moment go on switching together.
    @Test func oneStepAtOneMomentKeepsScreensTogether() {
        let a = Self.playlist.taking(.next, at: 1_795_000_003.25)
        let b = Playlist(items: Self.playlist.items, epoch: 1000 + 30 * 59_800_000).taking(.next, at: 1_795_000_003.25)
        for time in stride(from: 1_795_000_003.25, to: 1_795_000_100, by: 0.7) {
            #expect(a.position(at: time) == b.position(at: time))
        }
    }
}

/// A spread: screens showing one playlist side by side, each `offset` items on, switching together.
@Suite struct PlaylistSpreadTests {
    static let items: [Playlist.Item] = [
        .init(source: "/a.png", seconds: 10), .init(source: "/b.png", seconds: 5), .init(source: "/c.png", seconds: 15),
    ]

    @Test func eachPlaceShowsTheNextItemAndAllSwitchTogether() {
        let places = (0..<4).map { Playlist(items: Self.items, epoch: 1000, offset: $0) }
        for time in stride(from: 1000.0, to: 1100, by: 0.9) {
            let positions = places.map { $0.position(at: time) }
            // Consecutive items, wrapping; one start and one switch for all.
            #expect(positions.map(\.index) == (0..<4).map { (positions[0].index + $0) % 3 })
            #expect(Set(positions.map(\.started)).count == 1 && Set(positions.map(\.next)).count == 1)
        }
        // A video's start is its turn's, whichever place shows it.
        #expect(places[1].start(ofItem: 1, at: 1003) == 1000)
        #expect(places[1].start(ofItem: 2, at: 1012) == 1010)
    }

    @Test func aStepTakenOnEveryPlaceAtOneMomentKeepsThemSpread() {
        let places = (0..<3).map { Playlist(items: Self.items, epoch: 1000, offset: $0).taking(.next, at: 1003) }
        #expect(places.map { $0.position(at: 1003).index } == [1, 2, 0])
        #expect(Set(places.map(\.epoch)).count == 1)
        let back = places.map { $0.taking(.previous, at: 1004) }
        #expect(back.map { $0.position(at: 1004).index } == [0, 1, 2])
    }

    @Test func aPlaylistSavedBeforeSpreadsReadsAsPlaceZero() throws {
        let saved = #"{"items": [{"source": "/a.png", "seconds": 10}], "fit": "contain", "epoch": 5}"#
        let playlist = try JSONDecoder().decode(Playlist.self, from: Data(saved.utf8))
        #expect(playlist == Playlist(items: [.init(source: "/a.png", seconds: 10)], epoch: 5))
    }
}
