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
        let text = MessageCodec.encode(.result(method: .outputs, result: result))
        #expect(text.hasPrefix(#"{"method":"outputs","result":{"#))
        #expect(try MessageCodec.decodeResponse(text) == .result(method: .outputs, result: result))
        for code in MessageError.Code.allCases {
            let error = MessageError(code, "why \(code)")
            let encoded = MessageCodec.encodeError(error)
            #expect(encoded == #"{"error":{"code":\#(code.rawValue),"message":"why \#(code)"}}"#)
            #expect(try MessageCodec.decodeResponse(encoded) == .error(error))
        }
    }

    /// Every reply the product sends survives the wire, and reads back as what was sent.
    @Test func typedRepliesRoundTrip() throws {
        let replies: [Reply] = [
            .sent(id: 7, screen: nil), .sent(id: 8, screen: "HDMI-A-1"), .cardOpened(id: 1, screen: "DP-1"),
            .cardClosed(id: 1, screen: "DP-1"), .roleSet(screen: "DP-1", role: "rear-seat"), .subscribed,
        ]
        for reply in replies { #expect(try MessageCodec.decodeResponse(MessageCodec.encode(reply)) == reply) }
        #expect(
            MessageCodec.encode(Reply.sent(id: 7, screen: nil)) == #"{"method":"send","result":{"id":7,"screen":null}}"#
        )
    }

    /// Every event the product publishes survives the wire.
    @Test func typedEventsRoundTrip() throws {
        let events: [Event] = [
            .messageReceived(id: 1, text: "a\nb \u{2028}", screen: nil), .cardOpened(id: 2, screen: "DP-1", text: "x"),
            .cardClosed(id: 2, screen: "DP-1"), .cardReturned(id: 2),
            .roleChanged(screen: "DP-1", from: nil, to: "controller"),
            .controllerMoved(from: "DP-1", to: nil, standIn: true),
            .contentChanged(screen: "DP-2", from: "messages", to: "mirror"),
            .dropped(count: 3),
        ]
        for event in events { #expect(try MessageCodec.decodeEvent(MessageCodec.encode(event)) == event) }
        #expect(throws: MessageError.self) { try MessageCodec.decodeEvent(#"{"method":"send","result":{}}"#) }
    }

    static func decode(
        _ text: String
    ) throws(MessageCodec.DecodeError) -> (request: Request, envelope: Envelope, requestID: String?) {
        try MessageCodec.decode(bytes: Array(text.utf8))
    }

    /// A client's `requestId` is read in both forms, round-trips through `encodeRequest`, and is refused precisely
    /// when it is not 1–64 printable ASCII characters.
    @Test func requestIDs() throws {
        #expect(try Self.decode(#"{"method":"send","params":{"text":"a"},"requestId":"cli-1"}"#).requestID == "cli-1")
        #expect(try Self.decode(#"{"method":"status"}"#).requestID == nil)
        let rpc = try Self.decode(#"{"jsonrpc":"2.0","id":7,"method":"status","requestId":"x"}"#)
        #expect(rpc.requestID == "x" && rpc.envelope == .jsonRPC(id: .integer(7)))
        let line = MessageCodec.encodeRequest(.send(text: "a", screen: nil, ttl: nil), requestID: "r-9")
        #expect(try Self.decode(line).requestID == "r-9")
        let tooLong = "\"" + String(repeating: "x", count: 65) + "\""
        for bad in [#""""#, #""with space""#, tooLong, "7", #""é""#] {
            #expect(throws: MessageCodec.DecodeError.self, "requestId \(bad)") {
                try Self.decode(#"{"method":"status","requestId":\#(bad)}"#)
            }
        }
    }

    /// `events.subscribe` is a method like the others: decoded, its params checked; only its answer is the transport's.
    @Test func subscribeIsAnOrdinaryMethod() throws {
        #expect(try Self.decode(#"{"method":"events.subscribe"}"#).request == .subscribeEvents)
        #expect(try Self.decode(#"{"method":"events.subscribe","params":{}}"#).request == .subscribeEvents)
        #expect(try Self.decode(#"{"method":"status"}"#).request == .message(.status))
        #expect(
            throws: MessageCodec.DecodeError(
                error: MessageError(.invalidParams, "events.subscribe has no parameter \"kind\""), envelope: .plain)
        ) {
            try Self.decode(#"{"method":"events.subscribe","params":{"kind":"x"}}"#)
        }
        #expect(throws: MessageError.self) { try MessageCodec.decodeRequest(#"{"method":"events.subscribe"}"#) }
    }

    /// A request in Multiscreen's own form may carry an `id` (a non-empty string or an integer), echoed in its reply
    /// as the value it came in as, error or result.
    @Test func taggedRequestsEchoTheirID() throws {
        let decoded = try Self.decode(#"{"id":"op-7","method":"send","params":{"text":"hi"}}"#)
        #expect(decoded.request == .message(.send(text: "hi", screen: nil)))
        #expect(decoded.envelope == .tagged(id: .string("op-7")) && decoded.envelope.id == .string("op-7"))
        #expect(
            MessageCodec.encode(.sent(id: 3, screen: nil), in: decoded.envelope)
                == #"{"id":"op-7","method":"send","result":{"id":3,"screen":null}}"#)
        #expect(
            MessageCodec.encode(.error(MessageError(.busy, "full")), in: .tagged(id: .integer(9)))
                == #"{"error":{"code":-32003,"message":"full"},"id":9}"#)
        #expect(try Self.decode(#"{"method":"status"}"#).envelope.id == nil)
        #expect(try Self.decode(#"{"jsonrpc":"2.0","method":"status"}"#).envelope.id == nil)
    }

    /// JSON-RPC 2.0 requests are accepted and answered in kind; the envelope survives an error.
    @Test func jsonRPCRequestsAreAnsweredInKind() throws {
        let decoded = try Self.decode(#"{"jsonrpc":"2.0","id":7,"method":"send","params":{"text":"hi"}}"#)
        #expect(decoded.request == .message(.send(text: "hi", screen: nil)))
        #expect(decoded.envelope == .jsonRPC(id: .integer(7)))
        #expect(
            MessageCodec.encode(.sent(id: 3, screen: nil), in: decoded.envelope)
                == #"{"id":7,"jsonrpc":"2.0","result":{"id":3,"screen":null}}"#)
        #expect(
            MessageCodec.encode(.error(MessageError(.invalidParams, "no")), in: .jsonRPC(id: .string("a")))
                == #"{"error":{"code":-32602,"message":"no"},"id":"a","jsonrpc":"2.0"}"#)
        // A notification (no id) is carried out and not answered, unless it is refused.
        #expect(MessageCodec.encode(.sent(id: 3, screen: nil), in: .jsonRPC(id: nil)) == nil)
        #expect(
            MessageCodec.encode(.error(MessageError(.invalidParams, "no")), in: .jsonRPC(id: nil))
                == #"{"error":{"code":-32602,"message":"no"},"id":null,"jsonrpc":"2.0"}"#)
        // Wrong version, wrong id type, unknown method: errors, answered in JSON-RPC form.
        for (line, code) in [
            (#"{"jsonrpc":"1.0","id":1,"method":"status"}"#, MessageError.Code.invalidRequest),
            (#"{"jsonrpc":"2.0","id":[1],"method":"status"}"#, .invalidRequest),
            (#"{"jsonrpc":"2.0","id":1,"method":"nope"}"#, .methodNotFound),
        ] {
            #expect(throws: MessageCodec.DecodeError.self) { try Self.decode(line) }
            do {
                _ = try Self.decode(line)
            } catch {
                #expect(error.error.code == code, "\(line)")
                if case .jsonRPC = error.envelope {} else { Issue.record("\(line): not answered as JSON-RPC") }
            }
        }
    }

    /// The methods for control from outside, and their parameters' types.
    @Test func controlMethods() throws {
        let messages: [Message] = [
            .send(text: "brief", screen: "DP-1", ttl: 2.5), .setRole(screen: "DP-1", role: "external", force: true),
            .resetRole(screen: nil), .resetRole(screen: "DP-1"), .setContent(screen: "DP-1", mode: "mirror"),
            .clearMessages(screen: nil), .clearMessages(screen: "DP-1"), .reopenCard(id: 3, screen: "DP-2"),
            .discardCard(id: 4),
        ]
        for message in messages {
            #expect(try MessageCodec.decodeRequest(MessageCodec.encodeRequest(message)) == message)
        }
        for (line, code) in [
            (#"{"method":"send","params":{"text":"x","ttl":"5"}}"#, MessageError.Code.invalidParams),
            (#"{"method":"send","params":{"text":"x","ttl":0}}"#, .invalidParams),
            (#"{"method":"send","params":{"text":"x","ttl":99999999}}"#, .invalidParams),
            (#"{"method":"role.set","params":{"screen":"a","role":"b","force":"yes"}}"#, .invalidParams),
            (#"{"method":"content.set","params":{"screen":"a"}}"#, .invalidParams),
            (#"{"method":"messages.clear","params":{"screen":3}}"#, .invalidParams),
            (#"{"method":"card.discard","params":{"id":0}}"#, .invalidParams),
            (#"{"method":"card.discard","params":{"id":"3"}}"#, .invalidParams),
            (#"{"method":"card.reopen","params":{"id":3}}"#, .invalidParams),
        ] {
            #expect(throws: MessageError.self, "\(line)") { try MessageCodec.decodeRequest(line) }
            do {
                _ = try MessageCodec.decodeRequest(line)
            } catch {
                #expect(error.code == code, "\(line)")
            }
        }
    }

    /// An event is one line in the shape of a JSON-RPC notification, keys sorted, newlines escaped.
    @Test func eventWireFormat() throws {
        #expect(
            MessageCodec.encode(
                Event(
                    name: "role.changed",
                    params: ["screen": .string("DP-1"), "role": .string("controller"), "previous": .null]))
                == #"{"method":"role.changed","params":{"previous":null,"role":"controller","screen":"DP-1"}}"#)
        #expect(MessageCodec.encode(Event(name: "outputs.changed")) == #"{"method":"outputs.changed","params":{}}"#)
        let multiline = MessageCodec.encode(Event(name: "message", params: ["text": .string("a\nb")]))
        #expect(try MessageCodec.decodeEvent(multiline) == Event(name: "message", params: ["text": .string("a\nb")]))
        #expect(!multiline.contains("\n"))
    }

    /// Every way a request can be wrong, with the code it must produce.
    @Test(arguments: [
        // Not JSON at all.
        ("", MessageError.Code.parseError),
        ("{", .parseError),
        (#"{"method":"status"} x"#, .parseError),
        (#"{"method":'status'}"#, .parseError),
        (#"{"method":"status",,}"#, .parseError),
        (#"{,"method":"status"}"#, .parseError),
        (#"{"method":"send","params":{"text":"a\qb"}}"#, .parseError),
        (#"{"method":"send","params":{"text":"\ud800"}}"#, .parseError),
        (#"{"method":"send","params":{"text":"\udc00"}}"#, .parseError),
        ("{\"method\":\"send\",\"params\":{\"text\":\"tab\there\"}}", .parseError),
        (#"{"method":"status","params":{"a":-}}"#, .parseError),
        (#"{"method":"status","params":{"a":01}}"#, .parseError),
        (#"{"method":"status","params":{"a":1.}}"#, .parseError),
        (#"{"method":"status","params":{"a":1e999}}"#, .parseError),
        (#"{"method":"status","params":{"a":tru}}"#, .parseError),
        // JSON, but not a request.
        ("[]", .invalidRequest),
        (#""status""#, .invalidRequest),
        (#"{"params":{}}"#, .invalidRequest),
        (#"{"method":3}"#, .invalidRequest),
        (#"{"method":"status","params":[]}"#, .invalidRequest),
        (#"{"method":"status","id":[1]}"#, .invalidRequest),
        (#"{"method":"status","id":""}"#, .invalidRequest),
        (#"{"method":"status","id":1.5}"#, .invalidRequest),
        // A request for something that does not exist.
        (#"{"method":"card.flip","params":{}}"#, .methodNotFound),
        (#"{"method":"Send"}"#, .methodNotFound),
        // Params wrong.
        (#"{"method":"send"}"#, .invalidParams),
        (#"{"method":"send","params":{"text":3}}"#, .invalidParams),
        (#"{"method":"send","params":{"text":true}}"#, .invalidParams),
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

    /// Foundation bounds nesting at 512 levels; the codec adds no limit of its own.
    @Test func nesting() {
        let cases: [(String, MessageError.Code)] = [
            ("[".repeated(513) + "]".repeated(513), .parseError),
            (#"{"a":"#.repeated(513) + "1" + "}".repeated(513), .parseError),
            ("[".repeated(100_000), .parseError),
            ("[".repeated(512) + "]".repeated(512), .invalidRequest),
            (#"{"method":"status","params":{"a":"# + #"{"a":"#.repeated(509) + "1" + "}".repeated(511), .invalidParams),
        ]
        for (text, code) in cases {
            do {
                _ = try MessageCodec.decodeRequest(text)
                Issue.record("accepted \(text.prefix(40))")
            } catch {
                #expect(error.code == code, "\(text.prefix(40)) → \(error)")
            }
        }
    }

    @Test(
        arguments: [
            ([0xC0, 0x80], "Invalid UTF-8 sequence 2 bytes starting from character 35."),  // an overlong NUL
            ([0xED, 0xA0, 0x80], "Invalid UTF-8 sequence 3 bytes starting from character 35."),  // an encoded surrogate
            ([0xE2, 0x82], "Invalid UTF-8 sequence 2 bytes starting from character 35."),  // a truncated sequence
        ] as [([UInt8], String)])
    func invalidUTF8IsAParseError(invalid: [UInt8], description: String) {
        let request = Array(#"{"method":"send","params":{"text":""#.utf8) + invalid + Array(#""}}"#.utf8)
        #expect(throws: MessageError(.parseError, "not JSON: \(description)")) {
            try MessageCodec.decodeRequest(bytes: request)
        }
    }

    /// Syntax errors carry Foundation's description, which says what and where.
    @Test func parseErrorsSayWhere() {
        #expect(throws: MessageError(.parseError, "not JSON: Invalid value around character 19.")) {
            try MessageCodec.decodeRequest(#"{"method":"status" "params":{}}"#)
        }
        #expect(throws: MessageError(.parseError, "not JSON: Invalid escape sequence around character 36.")) {
            try MessageCodec.decodeRequest(#"{"method":"send","params":{"text":"a\qb"}}"#)
        }
        #expect(throws: MessageError(.parseError, "not JSON: Unexpected end of file during JSON parse.")) {
            try MessageCodec.decodeRequest("{")
        }
        #expect(
            throws: MessageError(
                .parseError, "not JSON: Too many nested arrays or dictionaries around character 513.")
        ) {
            try MessageCodec.decodeRequest(String(repeating: "[", count: 513))
        }
    }

    /// `true` is never a number and `1` never a boolean; an integer is a number written without fraction or
    /// exponent that fits in `Int`, anything else a `Double`.
    @Test func scalarsKeepTheirType() throws {
        let text = """
            {"method":"status","result":{"values":[true,false,1,0,-0,1.0,1e2,1.5,-0.0,9223372036854775807,\
            -9223372036854775808,9223372036854775808,-9223372036854775809,100000000000000000000000,1E300,null,\
            "1","true"]}}
            """
        let expected: [JSONValue] = [
            .bool(true), .bool(false), .integer(1), .integer(0), .integer(0), .number(1), .number(100), .number(1.5),
            .number(-0.0), .integer(Int.max), .integer(Int.min), .number(0x1p63),
            .number(-0x1p63), .number(1e23), .number(1e300), .null, .string("1"),
            .string("true"),
        ]
        #expect(try MessageCodec.decodeResponse(text) == .result(method: .status, result: ["values": .array(expected)]))
        #expect(throws: MessageError(.invalidParams, "\"text\" of send must be a string")) {
            try MessageCodec.decodeRequest(#"{"method":"send","params":{"text":1}}"#)
        }
        #expect(throws: MessageError(.invalidRequest, "malformed error object")) {
            try MessageCodec.decodeResponse(#"{"error":{"code":true,"message":"?"}}"#)
        }
        #expect(throws: MessageError(.invalidRequest, "malformed error object")) {
            try MessageCodec.decodeResponse(#"{"error":{"code":-32700.0,"message":"?"}}"#)
        }
    }

    /// A number with more significant digits than a `Double` holds is rounded once, to the nearest `Double`, so what
    /// the codec writes back decodes to the same value (found by the codec's fuzzer: Foundation's decimal
    /// `doubleValue` rounds `5.111111111111119111111115e2` to a neighbour, whose shortest form then decodes to another).
    @Test(arguments: [
        ("5.111111111111119111111115e2", 511.11111111111194),
        ("511.11111111111205", 511.11111111111205),
        ("12345678901234567890123e-50", 1.2345678901234567e-28),
        ("2.99999999999999999999999999999", 3),
    ])
    func longNumbersRoundOnce(written: String, nearest: Double) throws {
        let message = try MessageCodec.decodeRequest(#"{"method":"send","params":{"text":"a","ttl":\#(written)}}"#)
        #expect(message == .send(text: "a", screen: nil, ttl: nearest))
        #expect(try MessageCodec.decodeRequest(MessageCodec.encodeRequest(message)) == message)
    }

    /// What Foundation's parser accepts beyond RFC 8259 and the codec therefore accepts too (see ``JSONValue``):
    /// a duplicate key keeps its last value, a trailing comma is ignored, and so is a byte order mark; UTF-16 input
    /// is detected from its first bytes.
    @Test func foundationLeniencies() throws {
        #expect(try MessageCodec.decodeRequest("\u{FEFF}" + #"{"method":"status"}"#) == .status)
        let utf16LittleEndian = #"{"method":"status"}"#.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(try MessageCodec.decodeRequest(bytes: utf16LittleEndian) == .status)
        #expect(try MessageCodec.decodeRequest(#"{"method":"status","method":"outputs"}"#) == .outputs)
        #expect(try MessageCodec.decodeRequest(#"{"method":"status",}"#) == .status)
        #expect(
            try MessageCodec.decodeRequest(#"{"method":"send","params":{"text":"a","text":"b",},}"#)
                == .send(text: "b", screen: nil))
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

extension String {
    fileprivate func repeated(_ count: Int) -> String { String(repeating: self, count: count) }
}
