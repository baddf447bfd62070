import Foundation
import Testing

@testable import Outputs

/// A video item without seconds plays its own length: out of the cycle until it is measured, then timed by it, and
/// the same playlist whatever was measured.
@Suite struct PlaylistVideoLengthTests {
    // a.png 10 s, promo.mp4 its own length, c.png 5 s.
    static let playlist = Playlist(
        items: [
            .init(source: "/a.png", seconds: 10), .init(source: "/promo.mp4", seconds: nil),
            .init(source: "/c.png", seconds: 5),
        ], epoch: 1000)

    @Test func aVideoNotMeasuredYetIsOutOfTheCycle() {
        let p = Self.playlist
        #expect(p.playable(at: 1000) == [0, 2])
        #expect(p.position(at: 1012) == (2, 1010, 1015))
        #expect(p.position(at: 1015) == (0, 1015, 1025))
    }

    @Test func aMeasuredVideoLastsItsLength() {
        let p = Self.playlist.timed(by: ["/promo.mp4": 12.5])
        #expect(p.items[1].duration == 12.5)
        #expect(p.cycle == 27.5)
        #expect(p.position(at: 1012) == (1, 1010, 1022.5))
        #expect(p.position(at: 1023) == (2, 1022.5, 1027.5))
        // A video's length never makes a busy loop, nor a turn longer than a day.
        #expect(Self.playlist.timed(by: ["/promo.mp4": 0.04]).items[1].duration == Playlist.shortestItem)
        #expect(Self.playlist.timed(by: ["/promo.mp4": 200_000]).items[1].duration == 86_400)
    }

    @Test func whatWasMeasuredIsNotPartOfThePlaylist() throws {
        let timed = Self.playlist.timed(by: ["/promo.mp4": 12.5])
        #expect(timed == Self.playlist)
        #expect(timed.hashValue == Self.playlist.hashValue)
        // Nor saved: a restart measures again (the file may have changed).
        let saved = try JSONDecoder().decode(Playlist.self, from: JSONEncoder().encode(timed))
        #expect(saved.items[1].length == nil && saved.items[1].seconds == nil)
        // Seconds given win over a length.
        let capped = Playlist(items: [.init(source: "/promo.mp4", seconds: 4)]).timed(by: ["/promo.mp4": 12.5])
        #expect(capped.items[0].duration == 4)
    }

    @Test func onlyAVideoMayGoWithoutSeconds() {
        #expect(Playlist.problem(items: [.init(source: "/promo.mp4", seconds: nil)]) == nil)
        #expect(Playlist.problem(items: [.init(source: "https://cdn.example.org/promo.webm?v=2", seconds: nil)]) == nil)
        for source in ["/menu.png", "https://example.org/", "text:Hello", "blank", "/notes.txt"] {
            let problem = Playlist.problem(items: [.init(source: source, seconds: nil)])
            #expect(problem?.contains("item 1: needs seconds") == true, "\(source): \(problem ?? "accepted")")
        }
    }
}
