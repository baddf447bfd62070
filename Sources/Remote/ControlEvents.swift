import Messaging

/// The event side of the control protocol, shared by the server and the client.
///
/// - subscribe: `{"method": "events.subscribe"}` (or with `"params": {}`), answered
///   `{"method":"events.subscribe","result":{}}` by the server itself (never through the display thread);
/// - from then on every published event, one line each: `{"method":"<event name>","params":{...}}`;
/// - after events were dropped because the subscriber did not read: `{"method":"events.dropped","params":{"count":N}}`.
///
/// There is no unsubscribe request: a subscriber unsubscribes by closing the connection.
public enum ControlEvents {
    public static let subscribeMethod = "events.subscribe"
    public static let droppedMethod = "events.dropped"

    /// The server's reply to a subscription.
    public static let subscribeReply = JSONValue.object([
        "method": .string(subscribeMethod), "result": .object([:]),
    ]).serialized

    /// The line that tells a subscriber how many events it missed.
    public static func droppedLine(count: Int) -> String {
        MessageCodec.encodeEvent(name: droppedMethod, params: ["count": .integer(count)])
    }

    enum Request: Equatable {
        case subscribe
        case invalidParams
        case other
    }

    /// Whether a request line the codec rejected with `methodNotFound` is a subscription. The codec has already
    /// checked that it is a valid JSON object with no keys but `method` and `params`; this parses it again (only
    /// for unknown methods: ordinary requests pay nothing) and looks at those two.
    static func classify(_ bytes: [UInt8]) -> Request {
        guard case .object(let request)? = try? MessageCodec.parseJSON(bytes: bytes),
            request["method"] == .string(subscribeMethod)
        else { return .other }
        let params = request["params"]
        return params == nil || params == .object([:]) ? .subscribe : .invalidParams
    }
}
