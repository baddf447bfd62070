import Outputs
import Testing

@testable import Messaging

/// `media.show` and `media.stop` on the wire and through a ring.
@Suite struct MediaMessageTests {
    static let messages: [Message] = [
        .showMedia(screen: "HDMI-A-2", path: "/srv/signage/menu.png"),
        .showMedia(screen: "DP-1", path: "/srv/loop.mp4", fit: .cover, rotation: .threeQuarters, loop: true),
        .showMedia(screen: "DP-1", path: "/srv/a b/ü.webp", fit: .center, rotation: .quarter, loop: false),
        // A start, and a path with a newline in it (the slot keeps the start before the path, up to a newline).
        .showMedia(screen: "DP-2", path: "/srv/loop.mp4", loop: true, at: 1_795_831_607.229),
        .showMedia(screen: "DP-2", path: "/srv/two\nlines.mp4", at: 1_795_831_607.5),
        .showMedia(screen: "DP-2", path: "/srv/two\nlines.mp4"),
        .showMedia(screen: "DP-3", path: "/srv/promo.mp4", rotation: .half, loop: true, audio: true),
        .showMedia(screen: "DP-3", path: "/srv/promo.mp4", audio: true, at: 1_795_831_607.5),
        .stopMedia(screen: "DP-1"),
    ]

    @Test func decodesWithDefaultsAndEncodesBack() throws {
        let decoded = try MessageCodec.decodeRequest(
            #"{"method": "media.show", "params": {"screen": "HDMI-A-2", "path": "/srv/signage/menu.png"}}"#)
        #expect(
            decoded
                == .showMedia(
                    screen: "HDMI-A-2", path: "/srv/signage/menu.png", fit: .contain, rotation: .none, loop: false))
        for message in Self.messages {
            #expect(try MessageCodec.decodeRequest(MessageCodec.encodeRequest(message)) == message)
        }
    }

    @Test func travelsThroughARing() throws {
        #expect(try throughARing(Self.messages) == Self.messages)
    }

    @Test func refusesWhatItCannotShowPrecisely() {
        let cases: [(String, String)] = [
            (
                #"{"screen": "A", "path": "/x", "fit": "zoom"}"#,
                #""fit" of media.show must be one of contain, cover, stretch, center"#
            ),
            (#"{"screen": "A", "path": "/x", "rotate": 45}"#, #""rotate" of media.show must be 0, 90, 180 or 270"#),
            (#"{"screen": "A", "path": "/x", "rotate": "90"}"#, #""rotate" of media.show must be 0, 90, 180 or 270"#),
            (#"{"screen": "A", "path": ""}"#, #""path" must not be empty"#),
            (#"{"screen": "A", "path": "/x\u0000y"}"#, #""path" must not contain NUL"#),
            (#"{"screen": "A"}"#, #"media.show needs "path""#),
            (#"{"screen": "A", "path": "/x", "loop": 1}"#, #""loop" of media.show must be true or false"#),
            (#"{"screen": "A", "path": "/x", "audio": "on"}"#, #""audio" of media.show must be true or false"#),
            (#"{"screen": "A", "path": "/x", "volume": 1}"#, #"media.show has no parameter "volume""#),
            (#"{"screen": "A", "path": "/x", "at": 0}"#, #""at" must be a moment in seconds since 1970"#),
            (#"{"screen": "A", "path": "/x", "at": -5}"#, #""at" must be a moment in seconds since 1970"#),
        ]
        for (params, message) in cases {
            do {
                _ = try MessageCodec.decodeRequest(#"{"method": "media.show", "params": \#(params)}"#)
                Issue.record("accepted \(params)")
            } catch {
                #expect(error.code == .invalidParams)
                #expect(error.message == message)
            }
        }
    }
}

/// `playlist.set` and `playlist.clear` on the wire and through a ring.
@Suite struct PlaylistMessageTests {
    static let playlist = Playlist(
        items: [.init(source: "/srv/a b.png", seconds: 2.5), .init(source: "https://example.org/?x=1", seconds: 10)],
        fit: .cover, epoch: 1_795_000_000.25)

    @Test func travelsOnTheWireAndThroughARing() throws {
        let messages: [Message] = [
            .setPlaylist(screen: "DP-1", playlist: Self.playlist),
            .setPlaylist(screen: "DP-2", playlist: Playlist(items: [.init(source: "/x.mp4", seconds: 1)])),
            .clearPlaylist(screen: "DP-1"),
        ]
        for message in messages {
            #expect(try MessageCodec.decodeRequest(MessageCodec.encodeRequest(message)) == message)
        }
        let bus = try MessageBus()
        let consumer = bus.makeConsumer()
        let producer = bus.makeProducer(capacity: 8)
        for message in messages { #expect(producer.trySend(message) == .enqueued) }
        var received: [Message] = []
        _ = consumer.drain { received.append($0.message) }
        #expect(received == messages)
    }

    @Test func badItemsAreRefusedPrecisely() {
        let cases: [(String, String)] = [
            (#"{"screen": "A"}"#, #"playlist.set needs "items", an array"#),
            (#"{"screen": "A", "items": []}"#, #""items": a playlist needs at least one item"#),
            (
                #"{"screen": "A", "items": [{"source": "/a.png"}]}"#,
                #""items": item 1: needs seconds (only a video, told by its name's extension, may go without and play its own length)"#
            ),
            (
                #"{"screen": "A", "items": [{"source": "/a.png", "seconds": 1, "loop": true}]}"#,
                #"item 1 of playlist.set must be {"source": PATH_OR_URL, "seconds": N}"#
            ),
            (
                #"{"screen": "A", "items": [{"source": "a.png", "seconds": 1}]}"#,
                #""items": item 1: a.png is neither an absolute path, a file://, http:// or https:// URL, text:WORDS, card:WORDS nor blank"#
            ),
        ]
        for (params, message) in cases {
            do {
                _ = try MessageCodec.decodeRequest(#"{"method": "playlist.set", "params": \#(params)}"#)
                Issue.record("accepted \(params)")
            } catch {
                #expect(error.code == .invalidParams)
                #expect(error.message == message)
            }
        }
    }
}
