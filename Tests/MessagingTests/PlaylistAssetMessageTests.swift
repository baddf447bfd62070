import Outputs
import Testing

@testable import Messaging

/// An item's `sha256` on the wire (`playlist.set`, `playlist.interrupt`) and through a ring.
@Suite struct PlaylistAssetMessageTests {
    static let sha = String(repeating: "9a", count: 32)

    @Test func aChecksumTravelsOnTheWireAndThroughARing() throws {
        let items: [Playlist.Item] = [
            .init(source: "https://cdn.example.org/a.png", seconds: 5, sha256: Self.sha),
            .init(source: "https://cdn.example.org/b.mp4", seconds: 5), .init(source: "/srv/c.png", seconds: 5),
        ]
        let messages: [Message] = [
            .setPlaylist(screen: "DP-1", playlist: Playlist(items: items)),
            .interruptPlaylist(
                screen: "DP-1", request: .start(source: .items(items), fit: nil, seconds: 30, epoch: nil)),
        ]
        for message in messages {
            #expect(try MessageCodec.decodeRequest(MessageCodec.encodeRequest(message)) == message)
        }
        #expect(try throughARing(messages) == messages)
    }

    @Test func aChecksumIsLowerCasedAndCheckedPrecisely() throws {
        let upper = Self.sha.uppercased()
        let decoded = try MessageCodec.decodeRequest(
            #"{"method": "playlist.set", "params": {"screen": "A", "items": [{"source": "https://h/a.png", "seconds": 5, "sha256": "\#(upper)"}]}}"#
        )
        #expect(
            decoded
                == .setPlaylist(
                    screen: "A",
                    playlist: Playlist(items: [.init(source: "https://h/a.png", seconds: 5, sha256: Self.sha)])
                ))
        let cases: [(String, String)] = [
            (
                #"[{"source": "https://h/a.png", "seconds": 5, "sha256": 7}]"#,
                #"item 1 of playlist.set: "sha256" must be a string of 64 hexadecimal digits"#
            ),
            (
                #"[{"source": "https://h/a.png", "seconds": 5, "sha256": "abc"}]"#,
                #""items": item 1: sha256 must be 64 hexadecimal digits"#
            ),
            (
                #"[{"source": "https://h/page", "seconds": 5, "sha256": "\#(Self.sha)"}]"#,
                #""items": item 1: sha256 is only for an image or video by http(s) URL (a URL whose path ends in an image's or a video's extension)"#
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
