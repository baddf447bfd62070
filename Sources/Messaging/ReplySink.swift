/// Where the display thread sends what a producer is owed: one ``Reply`` per request, in request order, and the
/// ``Event``s it asked for. Each producer hands its sink to ``MessageBus/makeProducer(capacity:textCapacity:sink:)``;
/// the display thread calls it without knowing which transport is behind it.
///
/// Both methods are called on the display thread and must not block: queue the value and wake your own thread
/// (the control socket posts to a mailbox and writes an eventfd), or act at once if the work is tiny.
public protocol ReplySink: AnyObject, Sendable {
    /// The reply to the oldest request from this producer not yet answered.
    func deliver(_ reply: Reply)
    /// Whether ``publish(_:)`` would do anything now: lets the display thread skip building events nobody wants.
    var wantsEvents: Bool { get }
    /// An event, for whoever behind this sink subscribed to events.
    func publish(_ event: Event)
}

extension ReplySink {
    public var wantsEvents: Bool { false }
    public func publish(_ event: Event) {}
}

/// A producer that runs beside the display thread (a transport: the control socket, a remote, a fleet link):
/// created with the bus before the display loop starts, stopped after it ends. Its counters go into `status`.
public protocol MessageSource: AnyObject {
    /// The key of its counters in `status` (e.g. "control").
    var name: String { get }
    /// Counters for `status`: requests, refusals by reason, drops. Read on the display thread; must be cheap.
    var counters: [String: Int] { get }
    /// Short texts for `status` beside the counters (where it is connected to, its last error), when numbers
    /// cannot say it. Read on the display thread; must be cheap. Default: none.
    var notes: [String: String] { get }
    /// Closes the transport and its producer (the display thread drains what is left). Idempotent.
    func stop()
}

extension MessageSource {
    public var notes: [String: String] { [:] }
}
