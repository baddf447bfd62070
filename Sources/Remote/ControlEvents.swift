import Messaging

/// The event side of the control protocol, shared by the server and the client.
///
/// - subscribe: `{"method": "events.subscribe"}` (or with `"params": {}`), answered
///   `{"method":"events.subscribe","result":{}}` by the server itself (never through the display thread);
/// - from then on every published ``Event``, one line each: `{"method":"<event name>","params":{...}}`;
/// - after events were dropped because the subscriber did not read: `{"method":"events.dropped","params":{"count":N}}`.
///
/// There is no unsubscribe request: a subscriber unsubscribes by closing the connection.
public enum ControlEvents {
    public static let subscribeMethod = MessageMethod.subscribeEvents.rawValue

    /// The server's reply to a subscription.
    public static let subscribeReply = MessageCodec.encode(Reply.subscribed)

    /// The line that tells a subscriber how many events it missed.
    public static func droppedLine(count: Int) -> String { MessageCodec.encode(Event.dropped(count: count)) }
}
