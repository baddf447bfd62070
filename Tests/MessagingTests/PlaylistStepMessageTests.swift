import Outputs
import Testing

@testable import Messaging

/// `playlist.show|next|previous|pause|resume` and `schedule.show|set` on the wire and through a ring.
@Suite struct PlaylistStepMessageTests {
    static let messages: [Message] = [
        .showPlaylist(screen: "DP-1"),
        .stepPlaylist(screen: "DP-1", step: .next, at: 1_795_000_000.125),
        .stepPlaylist(screen: "DP-2", step: .previous, at: nil),
        .stepPlaylist(screen: "DP-2", step: .pause, at: 1_795_000_001),
        .stepPlaylist(screen: "DP-2", step: .resume, at: nil),
        .showSchedule(screen: nil),
        .showSchedule(screen: "DP-1"),
        .setSchedule(screen: "DP-1", schedule: "menu board"),
        .setSchedule(screen: "DP-1", schedule: nil),
    ]

    @Test func travelOnTheWireAndThroughARing() throws {
        for message in Self.messages {
            #expect(try MessageCodec.decodeRequest(MessageCodec.encodeRequest(message)) == message)
        }
        #expect(try throughARing(Self.messages) == Self.messages)
    }

    @Test func eachStepIsItsOwnMethod() throws {
        #expect(
            Self.messages.map(\.method.rawValue) == [
                "playlist.show", "playlist.next", "playlist.previous", "playlist.pause", "playlist.resume",
                "schedule.show", "schedule.show", "schedule.set", "schedule.set",
            ])
        #expect(
            try MessageCodec.decodeRequest(#"{"method": "playlist.pause", "params": {"screen": "A", "at": 5}}"#)
                == .stepPlaylist(screen: "A", step: .pause, at: 5))
        #expect(Self.messages.map(\.isQuery) == [true, false, false, false, false, true, true, false, false])
    }

    @Test func badParamsAreRefusedPrecisely() {
        let cases: [(String, String)] = [
            (#"{"method": "playlist.next", "params": {}}"#, #"playlist.next needs "screen""#),
            (
                #"{"method": "playlist.next", "params": {"screen": "A", "at": "now"}}"#,
                #""at" of playlist.next must be a number"#
            ),
            (
                #"{"method": "schedule.set", "params": {"screen": "A", "schedule": ""}}"#,
                #""schedule" must not be empty"#
            ),
            (
                #"{"method": "schedule.set", "params": {"screen": "A", "schedule": "a\u0001"}}"#,
                #""schedule" must not contain control characters"#
            ),
            (
                #"{"method": "schedule.show", "params": {"screen": "A", "x": 1}}"#,
                #"schedule.show has no parameter "x""#
            ),
        ]
        for (line, wording) in cases {
            #expect {
                try MessageCodec.decodeRequest(line)
            } throws: { error in
                guard let error = error as? MessageError else { return false }
                return error.code == .invalidParams && error.message.contains(wording)
            }
        }
    }
}

/// `playlist.set`'s `offset`: a screen's place in a spread, on the wire and through a ring.
@Suite struct PlaylistSpreadMessageTests {
    @Test func theOffsetTravelsAndIsChecked() throws {
        let placed = Message.setPlaylist(
            screen: "DP-2", playlist: Playlist(items: [.init(source: "/a.png", seconds: 2)], epoch: 7, offset: 3))
        #expect(try MessageCodec.decodeRequest(MessageCodec.encodeRequest(placed)) == placed)
        #expect(try throughARing([placed]) == [placed])
        let items = #"[{"source": "/a.png", "seconds": 5}]"#
        for bad in ["-1", "1.5", "1000"] {
            #expect(throws: MessageError.self) {
                try MessageCodec.decodeRequest(
                    #"{"method": "playlist.set", "params": {"screen": "A", "items": \#(items), "offset": \#(bad)}}"#)
            }
        }
    }
}

/// An item's window on the wire and through a ring.
@Suite struct PlaylistWindowMessageTests {
    @Test func theWindowTravels() throws {
        let items: [Playlist.Item] = [
            .init(source: "/a.png", seconds: 2, from: 1_795_000_000, until: 1_795_086_400),
            .init(source: "/b.png", seconds: 2, until: 1_795_000_000.5),
            .init(source: "https://example.org/x.png", seconds: 2, sha256: String(repeating: "a", count: 64)),
            .init(source: "/c.png", seconds: 2),
        ]
        let message = Message.setPlaylist(screen: "DP-1", playlist: Playlist(items: items))
        #expect(try MessageCodec.decodeRequest(MessageCodec.encodeRequest(message)) == message)
        #expect(try throughARing([message]) == [message])
        #expect(throws: MessageError.self) {
            try MessageCodec.decodeRequest(
                #"{"method": "playlist.set", "params": {"screen": "A", "items": [{"source": "/a.png", "seconds": 5, "from": "today"}]}}"#
            )
        }
    }
}
