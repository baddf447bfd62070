import Testing

@testable import Messaging

@Suite("JSON codec: round trips and every error")
struct MessageCodecTests {
    static let messages: [Message] = [
        .send(text: "Hello, world", screen: nil),
        .send(text: "Grüße 👋🏽 \"quoted\" \\ back\nslash\t\u{01}", screen: "left"),
        .send(text: "", screen: nil),
        .openCard(screen: "DP-1", text: String(repeating: "x", count: Message.maximumTextBytes)),
        .closeCard(screen: "HDMI-A-1"),
        .setRole(screen: "left", role: "controller"),
        .status,
        .outputs,
    ]

    @Test(arguments: messages)
    func requestRoundTrip(message: Message) throws {
        let text = MessageCodec.encodeRequest(message)
        #expect(try MessageCodec.decodeRequest(text) == message)
    }

    @Test func requestWireFormat() throws {
        #expect(
            MessageCodec.encodeRequest(.openCard(screen: "left", text: "Hi"))
                == #"{"method":"card.open","params":{"screen":"left","text":"Hi"}}"#)
        #expect(MessageCodec.encodeRequest(.status) == #"{"method":"status","params":{}}"#)
        // params may be omitted when a method has none, and whitespace is free.
        #expect(try MessageCodec.decodeRequest(#" { "method" : "outputs" } "#) == .outputs)
        #expect(
            try MessageCodec.decodeRequest(#"{"method":"send","params":{"text":"\u00e9\ud83d\ude00"}}"#)
                == .send(text: "é😀", screen: nil))
    }

    @Test func resultAndErrorRoundTrip() throws {
        let result: [String: JSONValue] = [
            "screens": .array([.object(["name": .string("left"), "scale": .number(1.5), "width": .integer(1920)])]),
            "busy": .bool(false), "note": .null,
        ]
        let text = MessageCodec.encodeResult(method: .outputs, result: result)
        #expect(text.hasPrefix(#"{"method":"outputs","result":{"#))
        #expect(try MessageCodec.decodeResponse(text) == .result(method: .outputs, result: result))
        for code in MessageError.Code.allCases {
            let error = MessageError(code, "why \(code)")
            let encoded = MessageCodec.encodeError(error)
            #expect(encoded == #"{"error":{"code":\#(code.rawValue),"message":"why \#(code)"}}"#)
            #expect(try MessageCodec.decodeResponse(encoded) == .error(error))
        }
    }

    /// An event is one line in the shape of a JSON-RPC notification, keys sorted, newlines escaped.
    @Test func eventWireFormat() throws {
        #expect(
            MessageCodec.encodeEvent(
                name: "role.changed",
                params: ["screen": .string("DP-1"), "role": .string("controller"), "previous": .null])
                == #"{"method":"role.changed","params":{"previous":null,"role":"controller","screen":"DP-1"}}"#)
        #expect(MessageCodec.encodeEvent(name: "outputs.changed") == #"{"method":"outputs.changed","params":{}}"#)
        let multiline = MessageCodec.encodeEvent(name: "message", params: ["text": .string("a\nb")])
        #expect(!multiline.contains("\n"))
        #expect(
            try JSONParser.parse(Array(multiline.utf8))
                == .object(["method": .string("message"), "params": .object(["text": .string("a\nb")])]))
    }

    /// Every way a request can be wrong, with the code it must produce.
    @Test(arguments: [
        // Not JSON at all.
        ("", MessageError.Code.parseError),
        ("{", .parseError),
        (#"{"method":"status"} x"#, .parseError),
        (#"{"method":'status'}"#, .parseError),
        (#"{"method":"status",}"#, .parseError),
        (#"{"method":"send","params":{"text":"a\qb"}}"#, .parseError),
        (#"{"method":"send","params":{"text":"\ud800"}}"#, .parseError),
        (#"{"method":"send","params":{"text":"\udc00"}}"#, .parseError),
        ("{\"method\":\"send\",\"params\":{\"text\":\"tab\there\"}}", .parseError),
        (#"{"method":"status","method":"outputs"}"#, .parseError),
        (#"{"method":"status","params":{"a":01}}"#, .parseError),
        (#"{"method":"status","params":{"a":1.}}"#, .parseError),
        (#"{"method":"status","params":{"a":1e999}}"#, .parseError),
        (#"{"method":"status","params":{"a":tru}}"#, .parseError),
        (String(repeating: "[", count: 65) + String(repeating: "]", count: 65), .parseError),
        // JSON, but not a request.
        ("[]", .invalidRequest),
        (#""status""#, .invalidRequest),
        (#"{"params":{}}"#, .invalidRequest),
        (#"{"method":3}"#, .invalidRequest),
        (#"{"method":"status","params":[]}"#, .invalidRequest),
        (#"{"method":"status","id":1}"#, .invalidRequest),
        // A request for something that does not exist.
        (#"{"method":"card.flip","params":{}}"#, .methodNotFound),
        (#"{"method":"Send"}"#, .methodNotFound),
        // Params wrong.
        (#"{"method":"send"}"#, .invalidParams),
        (#"{"method":"send","params":{"text":3}}"#, .invalidParams),
        (#"{"method":"send","params":{"text":"a","screen":null}}"#, .invalidParams),
        (#"{"method":"send","params":{"text":"a","colour":"red"}}"#, .invalidParams),
        (#"{"method":"card.open","params":{"screen":"left"}}"#, .invalidParams),
        (#"{"method":"card.close","params":{"screen":""}}"#, .invalidParams),
        (#"{"method":"role.set","params":{"screen":"left"}}"#, .invalidParams),
        (#"{"method":"status","params":{"verbose":true}}"#, .invalidParams),
    ])
    func malformedRequest(text: String, code: MessageError.Code) {
        #expect(throws: MessageError.self) { try MessageCodec.decodeRequest(text) }
        do {
            _ = try MessageCodec.decodeRequest(text)
        } catch {
            #expect(error.code == code, "\(text) → \(error)")
        }
    }

    @Test func invalidUTF8IsAParseError() {
        let bytes: [[UInt8]] = [
            [0xC0, 0x80],  // an overlong NUL
            [0xED, 0xA0, 0x80],  // an encoded surrogate
            [0xE2, 0x82],  // a truncated sequence
        ].map { Array(#"{"method":"send","params":{"text":""#.utf8) + $0 + Array(#""}}"#.utf8) }
        for request in bytes {
            #expect(throws: MessageError(.parseError, "invalid UTF-8 at byte 35")) {
                try MessageCodec.decodeRequest(bytes: request)
            }
        }
    }

    @Test func parseErrorsSayWhere() {
        #expect(throws: MessageError(.parseError, "expected ',' or '}' at byte 19")) {
            try MessageCodec.decodeRequest(#"{"method":"status" "params":{}}"#)
        }
    }

    @Test func limits() throws {
        let longest = String(repeating: "é", count: Message.maximumTextBytes / 2)
        #expect(
            try MessageCodec.decodeRequest(MessageCodec.encodeRequest(.send(text: longest, screen: nil)))
                == .send(text: longest, screen: nil))
        let tooLong = MessageCodec.encodeRequest(.send(text: longest + "x", screen: nil))
        #expect(throws: MessageError(.textTooLong, "text is 65537 UTF-8 bytes, the limit is 65536")) {
            try MessageCodec.decodeRequest(tooLong)
        }
        let longName = String(repeating: "s", count: Message.maximumNameBytes + 1)
        #expect(throws: MessageError.self) {
            try MessageCodec.decodeRequest(MessageCodec.encodeRequest(.closeCard(screen: longName)))
        }
        let huge =
            #"{"method":"send","params":{"text":""# + String(repeating: " ", count: MessageCodec.maximumRequestBytes)
            + #""}}"#
        do {
            _ = try MessageCodec.decodeRequest(huge)
            Issue.record("an oversized request was accepted")
        } catch {
            #expect(error.code == .requestTooLarge)
        }
    }

    @Test func malformedResponses() {
        for text in [
            #"{"method":"status"}"#, #"{"error":{"code":1,"message":"?"}}"#, #"{"method":"x","result":{}}"#, "[]",
        ] {
            #expect(throws: MessageError.self) { try MessageCodec.decodeResponse(text) }
        }
    }
}
