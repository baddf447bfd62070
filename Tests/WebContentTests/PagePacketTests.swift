import Messaging
import Testing

@testable import WebContent

/// What a page is handed: one fixed call with a JSON literal, whatever the text holds.
struct PagePacketTests {
    @Test func injectionTextStaysInsideItsStringLiteral() throws {
        let text = "'); alert(1); ('</script>\" + x + \"\\"
        let script = PagePacket.message(text: text, screen: nil).script
        #expect(script.hasPrefix("window.__multiscreenDeliver({"))
        #expect(script.hasSuffix("});"))
        // The literal is JSON: parsing it back gives the text unchanged.
        let literal = String(script.dropFirst("window.__multiscreenDeliver(".count).dropLast(2))
        guard case .object(let packet) = try JSONValue.parse(Array(literal.utf8)) else {
            Issue.record("not an object: \(literal)")
            return
        }
        #expect(packet["text"] == .string(text))
        #expect(packet["kind"] == .string("message"))
    }

    @Test func lineAndParagraphSeparatorsAreEscaped() {
        let script = PagePacket.message(text: "a\u{2028}b\u{2029}c", screen: "HDMI-A-1").script
        #expect(!script.unicodeScalars.contains("\u{2028}"))
        #expect(!script.unicodeScalars.contains("\u{2029}"))
        #expect(script.contains("a\\u2028b\\u2029c"))
    }

    @Test func replyCarriesThePagesID() throws {
        let packet = PagePacket.reply(id: .integer(7), .error(MessageError(.notPermitted, "no"))).json
        guard case .object(let object) = packet, case .object(let reply)? = object["reply"],
            case .object(let error)? = reply["error"]
        else {
            Issue.record("unexpected packet \(packet)")
            return
        }
        #expect(object["id"] == .integer(7))
        #expect(error["code"] == .integer(MessageError.Code.notPermitted.rawValue))
    }
}
