/// The control server's counters. Every request line ends in exactly one of: a reply written (`replies`), a reply
/// dropped because its connection had gone (`repliesDroppedClosedConnection`); `rejectedBusy` and `malformed` count
/// the error replies among them, so nothing is dropped without a number going up.
///
/// Events: every ``ControlServer/publish(_:)`` counts in `eventsPublished`; for each connection subscribed at the
/// time, the event line is either queued to its output or counted in `eventsDropped` (its output was over the
/// limit), and the connection is then told how many with an `events.dropped` line.
public struct ControlStatistics: Equatable, Sendable {
    /// Request lines read (valid or not, whitespace-only ones included), excluding empty lines.
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
    /// Connections closed at accept with `busy` because ``ControlServer/Options/maximumConnections`` were open.
    public var connectionsRefusedBusy = 0
    /// Times `accept` failed for want of descriptors (`EMFILE`/`ENFILE`) and the listener was paused.
    public var acceptPaused = 0
    /// Times the reserve descriptor was given up so that a connection could be accepted while descriptors ran out.
    public var acceptedOnReserve = 0
    /// Connections accepted from the allowed uid.
    public var connectionsAccepted = 0
    /// Connections closed because they sat idle past ``ControlServer/Options/idleTimeout``.
    public var idleClosed = 0
    /// Requests sent to the display thread and not yet answered.
    public var awaitingDisplay = 0
    /// Connections subscribed to events now.
    public var subscribers = 0
    /// Events published, whether or not anyone was subscribed.
    public var eventsPublished = 0
    /// Event lines not queued for a subscriber because its output buffer was over the limit (one per event and
    /// subscriber), each reported to that subscriber in an `events.dropped` line once it has caught up.
    public var eventsDropped = 0

    public init() {}
}
