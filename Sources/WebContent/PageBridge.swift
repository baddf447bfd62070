import Logging
import Messaging

/// One page's link to the bus: the page is a transport like the control socket, with its own ``RequestIntake``.
/// What the page posts (`window.webkit.messageHandlers.multiscreen.postMessage`) passes the same ``RequestGate``
/// (with the allow-list of the origin it shows) and, if admitted, is enqueued; the reply goes to the page with the
/// id the page gave it.
///
/// Display thread only: WebKit calls the script message handler from GLib's main context, which the display
/// thread's loop dispatches, and the display thread delivers replies and events. `@unchecked Sendable` because the
/// intake's outlet must be; no other thread ever sees a bridge.
public final class PageBridge: MessageSource, @unchecked Sendable {
    public let name: String
    /// Its way into the bus; nil once stopped. A request's tag is its envelope, which holds the page's id.
    private var intake: RequestIntake<Envelope>?
    private let permissions: PagePermissions
    private let logger: Logger
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
        // A page is one producer among many: a small ring is plenty for a person pressing buttons. The outlet holds
        // the bridge weakly: the producer holds the intake until the display thread retires it.
        intake = RequestIntake(
            bus: bus, capacity: 64, textCapacity: 256 * 1024,
            outlet: .init(
                reply: { [weak self] envelope, reply in self?.deliverNow(.reply(id: envelope.id, reply)) },
                wantsEvents: { true }, publish: { [weak self] event in self?.publish(event) }))
    }

    public var counters: [String: Int] {
        [
            "requests": statistics.requests, "enqueued": statistics.enqueued, "malformed": statistics.malformed,
            "notAllowed": statistics.notAllowed, "rejectedBusy": statistics.busy, "delivered": statistics.delivered,
        ]
    }

    /// Closes the page's ring (the display thread drains what is left and retires it).
    public func stop() {
        _ = intake?.close()
        intake = nil
        held = nil
    }

    // MARK: Page → bus

    /// What the `multiscreen` handler received: a JSON request `{id, method, params}`, passed through the gate of the
    /// origin the page shows now (a page that navigated elsewhere gets that origin's permissions).
    func received(multiscreen text: String) {
        statistics.requests += 1
        guard let intake else { return }
        let gate = RequestGate(
            methods: permissions.gate(forPageAt: pageURL()), events: .elsewhere("are handed to every page already"))
        switch intake.take(Array(text.utf8), through: gate, tag: { $0 }) {
        case .enqueued:
            statistics.enqueued += 1
        case .subscribe:
            preconditionFailure("a page's gate never admits events.subscribe")
        case .answer(let reply, let envelope):
            if case .error(let error) = reply { refused(error, what: "request") }
            deliverNow(.reply(id: envelope.id, reply))
        }
    }

    /// The starter kit's `sendMessage` handler: its body is the text to send to every external screen.
    func received(sendMessage text: String) {
        statistics.requests += 1
        let message = Message.send(text: text, screen: nil)
        do throws(MessageError) {
            try permissions.gate(forPageAt: pageURL()).check(.send)
            try message.validate()
            guard text.contains(where: { !$0.isWhitespace }) else {
                throw MessageError(.invalidParams, "the message is empty")
            }
        } catch {
            refused(error, what: "sendMessage")
            deliverNow(.reply(id: nil, .error(error)))
            return
        }
        enqueue(message)
    }

    /// Counted by reason and logged (a page looping on a bug logs its first few refusals of each reason).
    private func refused(_ error: MessageError, what: String) {
        let count: Int
        switch RequestGate.counter(for: error) {
        case "notAllowed":
            statistics.notAllowed += 1
            count = statistics.notAllowed
        case "rejectedBusy":
            statistics.busy += 1
            count = statistics.busy
        default:
            statistics.malformed += 1
            count = statistics.malformed
        }
        logger.log(
            level: count <= Self.refusalsLoggedPerReason ? .notice : .debug,
            "\(name): refused a page's \(what): \(error.message.prefix(200).logSafe)")
    }

    /// Refusals of each reason logged at notice level; the rest at debug (every one is counted).
    private static let refusalsLoggedPerReason = 5

    private func enqueue(_ message: Message) {
        guard let intake else { return }
        if let refusal = intake.submit(message, requestID: nil, tag: .plain) {
            refused(refusal, what: "sendMessage")
            deliverNow(.reply(id: nil, .error(refusal)))
        } else {
            statistics.enqueued += 1
        }
    }

    // MARK: Bus → page

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
