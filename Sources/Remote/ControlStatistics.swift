/// The control server's counters. Every request line ends in exactly one of: a reply written (`replies`), a reply
/// dropped because its connection had gone (`repliesDroppedClosedConnection`); `rejectedBusy` and `malformed` count
/// the error replies among them, so nothing is dropped without a number going up.
public struct ControlStatistics: Equatable, Sendable {
    /// Request lines read (valid or not), excluding empty lines.
    public var requests = 0
    /// Reply lines handed to a live connection's output buffer, local errors included.
    public var replies = 0
    /// Requests refused with `busy` because the ring to the display thread was full.
    public var rejectedBusy = 0
    /// Requests answered with a codec error (parse error, unknown method, bad params, text or request too large).
    public var malformed = 0
    /// Connections closed at accept because the peer's uid is not the allowed one.
    public var peerRejected = 0
    /// Replies (the display thread's or local errors) whose connection closed before they could be written.
    public var repliesDroppedClosedConnection = 0
    /// Replies from the display thread with no request awaiting one: a display-thread bug, logged.
    public var repliesUnmatched = 0
    /// Connections accepted from the allowed uid.
    public var connectionsAccepted = 0
    /// Requests sent to the display thread and not yet answered.
    public var awaitingDisplay = 0

    public init() {}
}
