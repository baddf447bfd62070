import Outputs
import Testing

@testable import Messaging

/// `playlist.interrupt` on the wire and through a ring: items or a config playlist's name, or `clear`.
@Suite struct InterruptMessageTests {
    static let items: [Playlist.Item] = [
        .init(source: "/srv/a b.png", seconds: 2.5), .init(source: "https://example.org/?x=1", seconds: 10),
    ]
    static let messages: [Message] = [
        .interruptPlaylist(
            screen: "DP-1", request: .start(source: .items(items), fit: .cover, seconds: 30, epoch: 1_795_000_000.25)),
        .interruptPlaylist(screen: "DP-2", request: .start(source: .items([.init(source: "/x.mp4", seconds: 1)]))),
        .interruptPlaylist(screen: "DP-2", request: .start(source: .named("fire drill"), fit: .stretch)),
        .interruptPlaylist(screen: "DP-1", request: .clear),
    ]

    @Test func travelsOnTheWireAndThroughARing() throws {
        for message in Self.messages {
            #expect(try MessageCodec.decodeRequest(MessageCodec.encodeRequest(message)) == message)
        }
        #expect(try throughARing(Self.messages) == Self.messages)
    }

    @Test func decodesWithDefaults() throws {
        #expect(
            try MessageCodec.decodeRequest(
                #"{"method": "playlist.interrupt", "params": {"screen": "A", "playlist": "promo"}}"#)
                == .interruptPlaylist(screen: "A", request: .start(source: .named("promo"))))
        #expect(
            try MessageCodec.decodeRequest(
                #"{"method": "playlist.interrupt", "params": {"screen": "A", "clear": true}}"#)
                == .interruptPlaylist(screen: "A", request: .clear))
    }

    /// Only an interrupt's own items may name files: a config playlist's name and `clear` name none.
    @Test func itNamesFilesOnlyWithItemsOfItsOwn() {
        #expect(Self.messages.map(\.namesFiles) == [true, true, false, false])
        #expect(
            MediaDirectories.paths(in: Self.messages[0]) == ["/srv/a b.png"]
                && MediaDirectories.paths(in: Self.messages[2]).isEmpty)
    }

    @Test func badParamsAreRefusedPrecisely() {
        let items = #"[{"source": "/a.png", "seconds": 5}]"#
        let cases: [(String, String)] = [
            (#"{"screen": "A"}"#, #"playlist.interrupt needs "items", "playlist" or "clear": true"#),
            (#"{"screen": "A", "clear": false}"#, #"playlist.interrupt needs "items", "playlist" or "clear": true"#),
            (
                #"{"screen": "A", "playlist": "p", "items": \#(items)}"#,
                #"playlist.interrupt takes "items" or "playlist", not both"#
            ),
            (#"{"screen": "A", "clear": true, "seconds": 5}"#, #""clear" of playlist.interrupt takes no "seconds""#),
            (#"{"screen": "A", "playlist": "p", "seconds": 0}"#, #""seconds" must be from 1 to 86400"#),
            (#"{"screen": "A", "playlist": "p", "seconds": 86401}"#, #""seconds" must be from 1 to 86400"#),
            (#"{"screen": "A", "playlist": ""}"#, #""playlist" must not be empty"#),
            (#"{"screen": "A", "playlist": "a\nb"}"#, #""playlist" must not contain control characters"#),
            (#"{"screen": "A", "playlist": 3}"#, #""playlist" of playlist.interrupt must be a string"#),
            (#"{"screen": "A", "items": []}"#, #""items": a playlist needs at least one item"#),
            (
                #"{"screen": "A", "items": [{"source": "a.png", "seconds": 1}]}"#,
                #""items": item 1: a.png is neither an absolute path, a file://, http:// or https:// URL, text:WORDS, card:WORDS nor blank"#
            ),
            (
                #"{"screen": "A", "items": \#(items), "fit": "zoom"}"#,
                #""fit" of playlist.interrupt must be one of contain, cover, stretch, center"#
            ),
            (#"{"screen": "A", "items": \#(items), "loop": true}"#, #"playlist.interrupt has no parameter "loop""#),
            (#"{"playlist": "p"}"#, #"playlist.interrupt needs "screen""#),
        ]
        for (params, message) in cases {
            do {
                _ = try MessageCodec.decodeRequest(#"{"method": "playlist.interrupt", "params": \#(params)}"#)
                Issue.record("accepted \(params)")
            } catch {
                #expect(error.code == .invalidParams, "\(params)")
                #expect(error.message == message)
            }
        }
    }
}
