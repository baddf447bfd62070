import PhoneRemote
import Testing

/// The remote's own reading of requests and frames, apart from the server (the fuzz targets' subjects).
@Suite struct RequestHeadTests {
    @Test func theSessionCookieIsReadFromEveryCookieField() {
        let name = "multiscreen_session"
        #expect(RequestHead.cookie(name, in: ["a=1; multiscreen_session=tok-1; b=2"]) == "tok-1")
        #expect(RequestHead.cookie(name, in: ["a=1", "multiscreen_session=\"tok\""]) == "tok")
        #expect(RequestHead.cookie(name, in: ["xmultiscreen_session=no; multiscreen_session=yes "]) == "yes")
        #expect(RequestHead.cookie(name, in: ["multiscreen_session"]) == nil)
        #expect(RequestHead.cookie(name, in: []) == nil)
        // Found by FuzzRemoteHTTP: an empty value is no session, whatever follows it.
        #expect(RequestHead.cookie(name, in: ["other=1; multiscreen_session=;\"tok_en-1\""]) == nil)
        #expect(RequestHead.cookie(name, in: ["multiscreen_session=\"\""]) == nil)
    }

    @Test func aPostNeedsAnOriginAndEveryRequestAnAllowedHost() {
        let hosts = HostPolicy(host: "127.0.0.1", port: 8080)
        #expect(RequestHead.refusal(authority: "127.0.0.1:8080", origin: nil, changesState: false, hosts: hosts) == nil)
        #expect(
            RequestHead.refusal(authority: "127.0.0.1:8080", origin: nil, changesState: true, hosts: hosts)
                == .originRequired)
        #expect(
            RequestHead.refusal(
                authority: "127.0.0.1:8080", origin: "http://localhost:8080", changesState: true, hosts: hosts) == nil)
        guard case .host = RequestHead.refusal(authority: "evil:8080", origin: nil, changesState: true, hosts: hosts)
        else {
            Issue.record("a foreign Host let through")
            return
        }
    }

    @Test func aLinkCodeIsPutInThePageOnlyWhenItCanBeOne() {
        #expect(RequestHead.linkCode("CY17tG2q4QOpnsPtgnnzzA") == "CY17tG2q4QOpnsPtgnnzzA")
        #expect(RequestHead.linkCode("ABCD-2345_x") == "ABCD-2345_x")
        for bad in ["", "a b", "<script>", "a\"b", String(repeating: "a", count: 65), "é"] {
            #expect(RequestHead.linkCode(bad) == nil, "\(bad)")
        }
    }

    static func frame(_ opcode: UInt8, _ text: String, fin: Bool = true, masked: Bool = true) -> MessageReader.Frame {
        MessageReader.Frame(opcode: opcode, fin: fin, masked: masked, reservedBits: false, payload: Array(text.utf8))
    }

    @Test func fragmentsJoinWithinTheLimitAndAnOversizeMessageCloses1009() {
        var reader = MessageReader(limit: 10, messagesPerSecond: 10)
        #expect(reader.read(Self.frame(1, "abc", fin: false), now: 0) == .none)
        #expect(reader.read(Self.frame(9, "p"), now: 0) == .pong(Array("p".utf8)))
        #expect(reader.read(Self.frame(0, "def"), now: 0) == .request(Array("abcdef".utf8)))
        #expect(reader.read(Self.frame(1, "123456", fin: false), now: 1) == .none)
        guard case .fail(.tooLarge, _, "refused.oversize") = reader.read(Self.frame(0, "78901"), now: 1) else {
            Issue.record("an oversize message in fragments was not refused with 1009")
            return
        }
        #expect(reader.closing)
        #expect(reader.read(Self.frame(1, "after"), now: 1) == .none, "data after the kiosk's close frame")
        #expect(reader.read(Self.frame(8, ""), now: 1) == .closed)
    }

    @Test func brokenFramesClose1002AndBadTextCloses1007() {
        var unmasked = MessageReader(limit: 100, messagesPerSecond: 10)
        guard case .fail(.protocolError, _, _) = unmasked.read(Self.frame(1, "{}", masked: false), now: 0) else {
            Issue.record("an unmasked frame was not refused with 1002")
            return
        }
        var stray = MessageReader(limit: 100, messagesPerSecond: 10)
        guard case .fail(.protocolError, _, _) = stray.read(Self.frame(0, "x"), now: 0) else {
            Issue.record("a stray continuation was not refused with 1002")
            return
        }
        var text = MessageReader(limit: 100, messagesPerSecond: 10)
        let invalid = MessageReader.Frame(opcode: 1, fin: true, masked: true, reservedBits: false, payload: [0xff])
        guard case .fail(.notUTF8, _, "refused.utf8") = text.read(invalid, now: 0) else {
            Issue.record("a text message that is not UTF-8 was not refused with 1007")
            return
        }
        var fast = MessageReader(limit: 100, messagesPerSecond: 2)
        #expect(fast.read(Self.frame(2, "b"), now: 0) == .reply(.binary, counter: "refused.binary"))
        #expect(fast.read(Self.frame(1, "1"), now: 0) == .request(Array("1".utf8)))
        #expect(fast.read(Self.frame(1, "2"), now: 0) == .request(Array("2".utf8)))
        #expect(fast.read(Self.frame(1, "3"), now: 0) == .reply(.rate, counter: "refused.rate"))
        #expect(fast.read(Self.frame(1, "4"), now: 1) == .request(Array("4".utf8)))
    }
}
