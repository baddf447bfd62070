import Messaging
import Testing

/// `screen.identify` on the wire and through a ring, and its one parameter's limits.
@Suite struct IdentifyMessageTests {
    @Test func travelsOnTheWireAndThroughARing() throws {
        #expect(try MessageCodec.decodeRequest(#"{"method":"screen.identify"}"#) == .identifyScreens(seconds: 5))
        #expect(
            try MessageCodec.decodeRequest(#"{"method":"screen.identify","params":{"seconds":12.5}}"#)
                == .identifyScreens(seconds: 12.5))
        let messages: [Message] = [
            .identifyScreens(seconds: 5), .identifyScreens(seconds: 60), .identifyScreens(seconds: 1),
        ]
        for message in messages {
            #expect(try MessageCodec.decodeRequest(MessageCodec.encodeRequest(message)) == message)
        }
        #expect(try throughARing(messages) == messages)
    }

    @Test(arguments: [
        #"{"seconds":0}"#, #"{"seconds":61}"#, #"{"seconds":-3}"#, #"{"seconds":"5"}"#, #"{"screen":"A"}"#,
    ])
    func badParamsAreRefused(params: String) {
        #expect(throws: MessageError.self) {
            try MessageCodec.decodeRequest(#"{"method":"screen.identify","params":\#(params)}"#)
        }
        do {
            _ = try MessageCodec.decodeRequest(#"{"method":"screen.identify","params":\#(params)}"#)
        } catch {
            #expect(error.code == .invalidParams)
        }
    }
}
