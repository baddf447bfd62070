import Messaging

/// What Multiscreen hands a page, as the script that hands it over.
///
/// The script is always the same call, `window.__multiscreenDeliver([<JSON>, …])`: the packets are JSON values
/// written by the codec's own serialiser, so a message's text is a JSON string literal and can never end the call or
/// start code of its own, whatever quotes, `'); alert(1); ('` or `</script>` it holds. JSON is a subset of
/// JavaScript only once U+2028 and U+2029 are escaped (they end a line in older JavaScript inside string literals),
/// so they are. One script carries every packet the page is handed at one time (a message, its `message.received`
/// event, the reply to the request that sent it): each script is one IPC to the web process and one turn of its
/// event loop.
public enum PagePacket: Equatable, Sendable {
    /// The reply to the page's request `id` (nil: a request posted without one).
    case reply(id: JSONValue?, Reply)
    case event(Event)
    /// A message the page's screen shows (the starter kit's `receiveMessage(text)`).
    case message(text: String, screen: String?)

    public var json: JSONValue {
        switch self {
        case .reply(let id, let reply):
            return .object([
                "kind": .string("reply"), "id": id ?? .null,
                "reply": MessageCodec.value(of: reply, in: .plain) ?? .null,
            ])
        case .event(let event):
            return .object([
                "kind": .string("event"),
                "event": .object(["method": .string(event.name), "params": .object(event.params)]),
            ])
        case .message(let text, let screen):
            return .object(["kind": .string("message"), "text": .string(text), "screen": .optional(screen)])
        }
    }

    /// The script that delivers this packet alone.
    public var script: String { Self.script(delivering: [self]) }

    /// The script that delivers `packets`, in order.
    public static func script(delivering packets: [PagePacket]) -> String {
        "window.__multiscreenDeliver(\(javaScriptLiteral(.array(packets.map(\.json)))));"
    }

    /// `value` as JSON that is also a valid JavaScript expression.
    public static func javaScriptLiteral(_ value: JSONValue) -> String {
        var text = ""
        for scalar in value.serialized.unicodeScalars {
            switch scalar {
            case "\u{2028}": text += "\\u2028"
            case "\u{2029}": text += "\\u2029"
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}
