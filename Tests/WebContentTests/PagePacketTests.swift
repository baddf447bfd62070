import Messaging
import Testing

@testable import WebContent

/// What a page is handed: one fixed call with a JSON literal, whatever the text holds.
struct PagePacketTests {
    @Test func injectionTextStaysInsideItsStringLiteral() throws {
        let text = "'); alert(1); ('</script>\" + x + \"\\"
        let script = PagePacket.message(text: text, screen: nil).script
        #expect(script.hasPrefix("window.__multiscreenDeliver([{"))
        #expect(script.hasSuffix("}]);"))
        // The literal is JSON: parsing it back gives the text unchanged.
        let packets = try Self.packets(in: script)
        guard packets.count == 1, case .object(let packet) = packets[0] else {
            Issue.record("not one object: \(packets)")
            return
        }
        #expect(packet["text"] == .string(text))
        #expect(packet["kind"] == .string("message"))
    }

    @Test func oneScriptCarriesSeveralPacketsInOrderAsData() throws {
        let text = "'); alert(1); ('</script>"
        let script = PagePacket.script(delivering: [
            .reply(id: .integer(3), .sent(id: 9, screen: nil)),
            .event(.messageReceived(id: 9, text: text, screen: nil)),
            .message(text: text, screen: nil),
        ])
        #expect(script.hasPrefix("window.__multiscreenDeliver([{") && script.hasSuffix("}]);"))
        // One call, nothing after it: the only `);` is the one that ends it.
        #expect(script.components(separatedBy: "__multiscreenDeliver(").count == 2)
        let kinds = try Self.packets(in: script).map { packet -> JSONValue? in
            guard case .object(let object) = packet else { return nil }
            return object["kind"]
        }
        #expect(kinds == [.string("reply"), .string("event"), .string("message")])
        guard case .object(let message) = try Self.packets(in: script)[2] else { return }
        #expect(message["text"] == .string(text))
    }

    /// The packets a delivery script hands over, read back as JSON (which they must be, to be data).
    private static func packets(in script: String) throws -> [JSONValue] {
        let literal = String(script.dropFirst("window.__multiscreenDeliver(".count).dropLast(2))
        guard case .array(let packets) = try JSONValue.parse(Array(literal.utf8)) else {
            Issue.record("not an array: \(literal)")
            return []
        }
        return packets
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
