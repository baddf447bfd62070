import Outputs
import Testing

@testable import Messaging

/// A video item without `seconds` (it plays its own length) on the wire and through a ring; anything else without
/// seconds is refused, saying which item and why.
@Suite struct PlaylistVideoLengthMessageTests {
    @Test func anItemWithoutSecondsTravelsAsOne() throws {
        let items: [Playlist.Item] = [
            .init(source: "/srv/promo.mp4", seconds: nil), .init(source: "/srv/menu.png", seconds: 8),
            .init(source: "https://cdn.example.org/loop.webm", seconds: nil, from: 100, until: 200),
        ]
        let messages: [Message] = [
            .setPlaylist(screen: "DP-1", playlist: Playlist(items: items)),
            .interruptPlaylist(
                screen: "DP-1", request: .start(source: .items(items), fit: nil, seconds: 30, epoch: nil)),
        ]
        for message in messages {
            let line = try MessageCodec.encodeRequest(message)
            #expect(!line.contains(#""seconds":null"#))
            #expect(try MessageCodec.decodeRequest(line) == message)
        }
        #expect(try throughARing(messages) == messages)
    }

    @Test func onlyAVideoGoesWithoutSeconds() {
        let cases: [(String, String)] = [
            (
                #"[{"source": "/srv/menu.png"}]"#,
                #""items": item 1: needs seconds (only a video, told by its name's extension, may go without and play its own length)"#
            ),
            (
                #"[{"source": "/srv/promo.mp4", "seconds": "long"}]"#,
                #"item 1 of playlist.set: "seconds" must be a number"#
            ),
        ]
        for (items, message) in cases {
            do {
                _ = try MessageCodec.decodeRequest(
                    #"{"method": "playlist.set", "params": {"screen": "A", "items": \#(items)}}"#)
                Issue.record("accepted \(items)")
            } catch {
                #expect(error.code == .invalidParams)
                #expect(error.message == message)
            }
        }
    }
}
