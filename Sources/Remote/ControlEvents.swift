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
    /// checked that it is a valid JSON object with no keys but `method` and `params`, so the line without its
    /// insignificant whitespace tells the rest. Only called for unknown methods: ordinary requests pay nothing.
    static func classify(_ bytes: [UInt8]) -> Request {
        let compact = String(decoding: compacted(bytes), as: UTF8.self)
        let method = #""method":"\#(subscribeMethod)""#
        if compact == "{\(method)}" || compact == #"{\#(method),"params":{}}"#
            || compact == #"{"params":{},\#(method)}"#
        {
            return .subscribe
        }
        if compact.hasPrefix("{\(method),") || compact.hasSuffix(",\(method)}") { return .invalidParams }
        return .other
    }

    /// JSON text without the whitespace between tokens (what is inside strings is kept).
    private static func compacted(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                result.append(byte)
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                result.append(byte)
            } else if byte != 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D {
                result.append(byte)
            }
        }
        return result
    }
}
