import Messaging
import Testing

/// `screen.capture` on the wire and through a ring, and who may call it.
@Suite struct CaptureMessageTests {
    @Test func travelsOnTheWireAndThroughARing() throws {
        let message = Message.captureScreen(screen: "HDMI-A-2", path: "/var/lib/proof/a.png")
        #expect(
            try MessageCodec.decodeRequest(
                #"{"method":"screen.capture","params":{"screen":"HDMI-A-2","path":"/var/lib/proof/a.png"}}"#)
                == message)
        #expect(try MessageCodec.decodeRequest(MessageCodec.encodeRequest(message)) == message)
        #expect(try throughARing([message]) == [message])
        // Without a path, the picture comes back in the reply.
        let inReply = Message.captureScreen(screen: "HDMI-A-2", path: nil)
        #expect(
            try MessageCodec.decodeRequest(#"{"method":"screen.capture","params":{"screen":"HDMI-A-2"}}"#) == inReply)
        #expect(try throughARing([inReply, message]) == [inReply, message])
        #expect(!inReply.writesFiles && message.writesFiles)
    }

    @Test(arguments: [
        #"{"path":"/a.png"}"#, #"{"screen":"A","path":"a.png"}"#, #"{"screen":"","path":"/a"}"#,
    ])
    func badParamsAreRefused(params: String) {
        do {
            _ = try MessageCodec.decodeRequest(#"{"method":"screen.capture","params":\#(params)}"#)
            Issue.record("accepted \(params)")
        } catch {
            #expect(error.code == .invalidParams, "\(params): \(error)")
        }
    }

    /// Writing a file is never granted to anyone but the local socket, media directories or not; a capture in the
    /// reply is granted like any method.
    @Test func noRemoteCallerMayWriteACaptureWhateverItsGrant() throws {
        let directories = try MediaDirectories(["/tmp"])
        for gate in [
            MethodGate(caller: "the fleet link", permitted: Set(MessageMethod.allCases)),
            MethodGate(caller: "the fleet link", permitted: Set(MessageMethod.allCases), files: directories),
        ] {
            #expect(gate.permitted.contains(.captureScreen))
            try gate.check(.captureScreen(screen: "A", path: nil))
            do {
                try gate.check(.captureScreen(screen: "A", path: "/tmp/a.png"))
                Issue.record("permitted")
            } catch {
                #expect(error.code == .notPermitted && error.message.contains("writes a file on the kiosk"))
            }
        }
    }

    @Test func aCallerNotGrantedItIsRefused() {
        let gate = MethodGate(caller: "a phone", permitted: [.send])
        #expect(throws: MessageError.self) { try gate.check(.captureScreen(screen: "A", path: nil)) }
    }
}
