import Logging
import Messaging

/// One page's link to the bus: the page is a producer like the control socket, with its own ring and its own
/// reply sink. What the page posts (`window.webkit.messageHandlers.multiscreen.postMessage`) is decoded with the
/// same codec and, if the page may call that method, enqueued; the reply comes back through this sink and goes to
/// the page with the id the page gave it.
///
/// Display thread only: WebKit calls the script message handler from GLib's main context, which the display
/// thread's loop dispatches, and the display thread delivers replies and events. `@unchecked Sendable` because
/// ``ReplySink`` requires it; no other thread ever sees a bridge.
public final class PageBridge: MessageSource, ReplySink, @unchecked Sendable {
    public let name: String
    /// Its ring into the bus; nil once stopped (the producer holds this sink, so the bridge lets go of it).
    private var producer: MessageProducer?
    private let permissions: PagePermissions
    private let logger: Logger
    /// Ids of requests in the ring, oldest first: replies come back in request order.
    private var waitingIDs: [JSONValue?] = []
    /// Runs a delivery script in the page (the ``WebView`` sets it).
    var run: (String) -> Void = { _ in }
    /// The URL the page's view shows now (the ``WebView`` sets it): its origin decides what the page may call, so a
    /// page that navigated elsewhere gets that origin's permissions.
    var pageURL: () -> String? = { nil }
    private(set) var statistics = (requests: 0, enqueued: 0, malformed: 0, notAllowed: 0, busy: 0, delivered: 0)
    /// Packets held back while the display thread handles one message (``hold()`` … ``release()``), so the page gets
    /// them in one script; nil when not holding (a packet goes at once).
    private var held: [PagePacket]?

    /// - Parameter screen: the page's screen, which names its counters in `status` (`web:<screen>`).
    public init(
        bus: MessageBus, screen: String, permissions: PagePermissions = PagePermissions(),
        logger: Logger = Logger(label: "multiscreen.web")
    ) {
        name = "web:\(screen)"
        self.permissions = permissions
        self.logger = logger
        // A page is one producer among many: a small ring is plenty for a person pressing buttons.
        producer = bus.makeProducer(capacity: 64, textCapacity: 256 * 1024, sink: self)
    }

    public var counters: [String: Int] {
        [
            "requests": statistics.requests, "enqueued": statistics.enqueued, "malformed": statistics.malformed,
            "notAllowed": statistics.notAllowed, "rejectedBusy": statistics.busy, "delivered": statistics.delivered,
        ]
    }

    /// Closes the page's ring (the display thread drains what is left and retires it).
    public func stop() {
        producer?.close()
        producer = nil
        held = nil
    }

    // MARK: Page → bus

    /// What the `multiscreen` handler received: a JSON object `{method, params, id?}`, as an object or as JSON text.
    func received(multiscreen text: String) {
        statistics.requests += 1
        var id: JSONValue?
        let message: Message
        let requestID: String?
        do throws(MessageError) {
            guard text.utf8.count <= MessageCodec.maximumRequestBytes else {
                throw MessageError(
                    .requestTooLarge,
                    "request is \(text.utf8.count) bytes, the limit is \(MessageCodec.maximumRequestBytes)")
            }
            guard case .object(var object) = try JSONValue.parse(Array(text.utf8)) else {
                throw MessageError(.invalidRequest, "a page's request is an object {method, params}")
            }
            id = object.removeValue(forKey: "id")
            let decoded: (request: Request, envelope: Envelope, requestID: String?)
            do throws(MessageCodec.DecodeError) {
                decoded = try MessageCodec.decode(object: object)
            } catch {
                throw error.error
            }
            guard case .message(let decodedMessage) = decoded.request else {
                throw MessageError(.invalidRequest, "events.subscribe is not available to a page")
            }
            message = decodedMessage
            requestID = decoded.requestID
            try check(message.method)
        } catch {
            if error.code != .notPermitted { statistics.malformed += 1 }
            logger.notice("\(name): refused a page's request: \(error.message.prefix(200).logSafe)")
            deliverNow(.reply(id: id, .error(error)))
            return
        }
        enqueue(message, id: id, requestID: requestID)
    }

    /// The starter kit's `sendMessage` handler: its body is the text to send to every external screen.
    func received(sendMessage text: String) {
        statistics.requests += 1
        let message = Message.send(text: text, screen: nil)
        do throws(MessageError) {
            try message.validate()
            try check(.send)
            guard text.contains(where: { !$0.isWhitespace }) else {
                throw MessageError(.invalidParams, "the message is empty")
            }
        } catch {
            if error.code != .notPermitted { statistics.malformed += 1 }
            logger.notice("\(name): refused a page's sendMessage: \(error.message.prefix(200).logSafe)")
            deliverNow(.reply(id: nil, .error(error)))
            return
        }
        enqueue(message, id: nil)
    }

    /// Whether the page, from the origin it shows now, may call `method`.
    private func check(_ method: MessageMethod) throws(MessageError) {
        do {
            try permissions.gate(forPageAt: pageURL()).check(method)
        } catch {
            statistics.notAllowed += 1
            throw error
        }
    }

    private func enqueue(_ message: Message, id: JSONValue?, requestID: String? = nil) {
        guard let producer else { return }
        switch producer.trySend(message, requestID: requestID) {
        case .enqueued:
            statistics.enqueued += 1
            waitingIDs.append(id)
        case .full:
            statistics.busy += 1
            deliverNow(.reply(id: id, .error(MessageError(.busy, "the bus is full; try again"))))
        case .rejected(let error):
            statistics.malformed += 1
            deliverNow(.reply(id: id, .error(error)))
        }
    }

    // MARK: Bus → page

    public func deliver(_ reply: Reply) {
        let id = waitingIDs.isEmpty ? nil : waitingIDs.removeFirst()
        deliverNow(.reply(id: id, reply))
    }

    public var wantsEvents: Bool { true }

    /// Every event but `frame.shown` (one per frame of every screen: latency tooling's business, not a page's).
    public func publish(_ event: Event) {
        guard event.name != Event.Name.frameShown.rawValue else { return }
        deliverNow(.event(event))
    }

    /// A message for the page's screen.
    public func show(text: String, screen: String?) { deliverNow(.message(text: text, screen: screen)) }

    /// From now until ``release()``, packets for the page are held back and then handed over together.
    public func hold() {
        if held == nil { held = [] }
    }

    /// Hands what was held over in one script and stops holding. - Returns: whether a script was run.
    @discardableResult
    public func release() -> Bool {
        guard let packets = held else { return false }
        held = nil
        guard !packets.isEmpty else { return false }
        run(PagePacket.script(delivering: packets))
        return true
    }

    private func deliverNow(_ packet: PagePacket) {
        statistics.delivered += 1
        if held != nil {
            held?.append(packet)
        } else {
            run(packet.script)
        }
    }
}
