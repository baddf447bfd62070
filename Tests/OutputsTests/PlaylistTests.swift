import Testing

@testable import Outputs

/// Which item a playlist plays is the wall clock's: a function of its epoch and the time alone.
@Suite struct PlaylistTests {
    static let playlist = Playlist(
        items: [
            .init(source: "/a.png", seconds: 10), .init(source: "/b.mp4", seconds: 5),
            .init(source: "https://example.org/", seconds: 15),
        ], epoch: 1000)

    @Test func thePositionFollowsTheClockAroundTheCycle() {
        let p = Self.playlist
        #expect(p.cycle == 30)
        #expect(p.position(at: 1000) == (0, 1000, 1010))
        #expect(p.position(at: 1009.999) == (0, 1000, 1010))
        #expect(p.position(at: 1010) == (1, 1010, 1015))
        #expect(p.position(at: 1016) == (2, 1015, 1030))
        // Cycles later, and before the epoch: the same arithmetic.
        #expect(p.position(at: 1000 + 30 * 1000 + 12) == (1, 31_010, 31_015))
        #expect(p.position(at: 995) == (2, 985, 1000))
    }

    /// Two kiosks (or screens) that never talked agree on the item and the switch, whenever each started.
    @Test func anyTwoCallersAgreeWhenTheirClocksDo() {
        for time in stride(from: 1_795_000_000.0, to: 1_795_000_100.0, by: 0.37) {
            let a = Self.playlist.position(at: time)
            let b = Playlist(items: Self.playlist.items, epoch: 1000).position(at: time)
            #expect(a == b)
            #expect(a.started <= time && time < a.next)
        }
    }

    /// An item's start is the same whatever moment of its turn asks, and an item just switched away from still
    /// has its own turn's start (a screen a moment behind the clock).
    @Test func anItemsStartIsItsTurns() {
        let p = Self.playlist
        for time in stride(from: 31_010.0, to: 31_015, by: 0.5) { #expect(p.start(ofItem: 1, at: time) == 31_010) }
        #expect(p.start(ofItem: 0, at: 31_010.2) == 31_000)
        #expect(p.start(ofItem: 2, at: 31_001) == 30_985)
        #expect(p.start(ofItem: 2, at: 31_016) == 31_015)
        // One item: its start is the epoch, for ever (nothing switches).
        #expect(Playlist(items: [.init(source: "/v.mp4", seconds: 20)], epoch: 1000).start(ofItem: 0, at: 5000) == 1000)
    }

    @Test func badItemsAreRefusedPrecisely() {
        #expect(Playlist.problem(items: []) == "a playlist needs at least one item")
        #expect(
            Playlist.problem(items: [.init(source: "/a.png", seconds: 0.1)]) == "item 1: seconds must be 0.5 to 86400")
        #expect(
            Playlist.problem(items: [.init(source: "/a.png", seconds: 1), .init(source: "b.png", seconds: 1)])
                == "item 2: b.png is neither an absolute path, a file://, http:// or https:// URL, text:WORDS, card:WORDS nor blank"
        )
        #expect(
            Playlist.problem(items: [.init(source: "/a\nb.png", seconds: 1)])
                == "item 1: a file's absolute path, a page's URL or a slide's words, without control characters")
        #expect(Playlist.problem(items: Self.playlist.items) == nil)
        #expect(Playlist.Item(source: "HTTPS://example.org/", seconds: 1).isPage)
        #expect(!Playlist.Item(source: "/srv/http://x.png", seconds: 1).isPage)
    }

    /// Items Multiscreen draws itself are told by their source: `text:`, `card:`, `blank`.
    @Test func slidesCardsAndBlankAreToldByTheirSource() {
        let contents = ["text:Lunch at noon", "card:Menu", "blank", "/srv/blank", "https://x.org/", "text:"].map {
            Playlist.Item(source: $0, seconds: 1).content
        }
        #expect(
            contents == [
                .text("Lunch at noon"), .card("Menu"), .blank, .file("/srv/blank"), .page("https://x.org/"), .text(""),
            ])
        #expect(Playlist.problem(items: [.init(source: "card: ", seconds: 1)]) == "item 1: card: needs words after it")
        #expect(
            Playlist.problem(items: [.init(source: "text:Hi", seconds: 1), .init(source: "blank", seconds: 1)]) == nil)
        #expect(!Playlist.Item(source: "text:/etc/passwd", seconds: 1).namesFile)
    }
}
