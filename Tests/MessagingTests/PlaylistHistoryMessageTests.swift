import Messaging
import Testing

/// `playlist.history` on the wire and through a ring, and its parameters' limits.
@Suite struct PlaylistHistoryMessageTests {
    @Test func travelsOnTheWireAndThroughARing() throws {
        #expect(
            try MessageCodec.decodeRequest(#"{"method":"playlist.history"}"#)
                == .playlistHistory(screen: nil, limit: 100))
        #expect(
            try MessageCodec.decodeRequest(#"{"method":"playlist.history","params":{"screen":"DP-1","limit":1000}}"#)
                == .playlistHistory(screen: "DP-1", limit: 1000))
        let messages: [Message] = [
            .playlistHistory(screen: nil, limit: 100), .playlistHistory(screen: "HDMI-A-2", limit: 1),
            .playlistHistory(screen: nil, limit: 1000),
        ]
        for message in messages {
            #expect(try MessageCodec.decodeRequest(MessageCodec.encodeRequest(message)) == message)
        }
        #expect(try throughARing(messages) == messages)
        #expect(Message.playlistHistory(screen: nil, limit: 5).isQuery)
    }

    @Test(arguments: [
        #"{"limit":0}"#, #"{"limit":1001}"#, #"{"limit":2.5}"#, #"{"limit":"5"}"#, #"{"screen":""}"#, #"{"from":1}"#,
        #"{"limit":1e300}"#,
    ])
    func badParamsAreRefused(params: String) {
        do {
            _ = try MessageCodec.decodeRequest(#"{"method":"playlist.history","params":\#(params)}"#)
            Issue.record("accepted \(params)")
        } catch {
            #expect(error.code == .invalidParams, "\(params): \(error)")
        }
    }
}
