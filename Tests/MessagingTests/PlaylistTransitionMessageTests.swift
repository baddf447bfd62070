import Outputs
import Testing

@testable import Messaging

/// An item's `transition` on the wire and through a ring, and refused when it is not one.
@Suite struct PlaylistTransitionMessageTests {
    @Test func aTransitionTravels() throws {
        let items: [Playlist.Item] = [
            .init(source: "/srv/a.png", seconds: 5, transition: .crossfade),
            .init(source: "/srv/b.png", seconds: 5, transition: .cut), .init(source: "/srv/c.mp4", seconds: nil),
        ]
        let message = Message.setPlaylist(screen: "DP-1", playlist: Playlist(items: items))
        #expect(try MessageCodec.decodeRequest(MessageCodec.encodeRequest(message)) == message)
        #expect(try throughARing([message]) == [message])
    }

    @Test func anUnknownTransitionIsRefused() {
        do {
            _ = try MessageCodec.decodeRequest(
                #"{"method": "playlist.set", "params": {"screen": "A", "items": [{"source": "/a.png", "seconds": 5, "transition": "wipe"}]}}"#
            )
            Issue.record("accepted")
        } catch {
            #expect(error.code == .invalidParams)
            #expect(error.message == #"item 1 of playlist.set: "transition" must be "cut" or "crossfade""#)
        }
    }
}
