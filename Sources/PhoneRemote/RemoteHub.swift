import Logging
import Messaging
import Synchronization
import SystemCalls

/// The remote's shared state, whatever the route: the ``AccessGate`` (behind a mutex), the clock, the way to the
/// display thread, the live WebSocket of the current controller (so a newer claim can tell it `superseded`), and
/// the receipts its messages are owed.
public final class RemoteHub: Sendable {
    public struct Options: Sendable {
        public var policy = AccessPolicy()
        /// Methods a remote session may call. `send` by default; `card.open`/`card.close` when configured.
        public var methods: Set<MessageMethod> = [.send]
        /// The largest WebSocket message or form body accepted, in bytes.
        public var maximumMessageBytes = 16 * 1024
        /// Messages per second one connection may send before being answered `busy`.
        public var messagesPerSecond: Double = 10
        /// Connections, WebSockets and the time a connection may take (``ConnectionLimits``).
        public var limits = ConnectionLimits()

        public init() {}
    }

    /// One live WebSocket of a session, and how to end it with a reason.
    private struct Connection {
        let id: Int
        let kick: @Sendable (AccessRefusal) -> Void
    }

    public let options: Options
    /// Where the display thread's `frame.shown` events are matched with the messages this remote sent.
    public let receipts: ReceiptBook
    private let clock: @Sendable () -> Double
    private let sender: any MessageSender
    let logger = Logger(label: "multiscreen.remote")
    private struct State {
        var gate: AccessGate
        /// Session id → its live connection.
        var connections: [Int: Connection] = [:]
        var nextConnection = 1
        var display: RemoteDisplay?
        var counters: [String: Int] = [:]
    }
    private let state: Mutex<State>
    /// What a phone may call (``Options/methods``, never `events.subscribe`), and the refusal of anything else.
    let gate: MethodGate
    /// The one gate every transport's requests pass: a phone hears of its messages through receipts, not events.
    private let requestGate: RequestGate
    /// 8 random hex digits: this remote's part of its phones' request ids (``retryKey(_:session:)``), as session ids
    /// start at 1 again in a remote started anew while the display thread still remembers the ids of the last one.
    private let instance: String
    private let onDisplay: @Sendable (RemoteDisplay) -> Void
    private let onActivity: @Sendable (RemoteActivity) -> Void
    private let onChange: @Sendable () -> Void

    /// - Parameters:
    ///   - clock: monotonic seconds (injected by tests).
    ///   - onDisplay: called, outside the lock, whenever what the screens should show changes.
    ///   - onActivity: each `remote.*` activity, in order: called under the hub's lock, so it must not call back
    ///     into the hub (posting to a ring is what it is for).
    ///   - onChange: called after anything that may have moved ``nextDeadline`` earlier (a claim, a closed page),
    ///     so a timer waiting for the old deadline can re-arm.
    public init(
        options: Options = Options(), clock: @escaping @Sendable () -> Double = RemoteHub.monotonicSeconds,
        randomBytes: @escaping @Sendable (Int) -> [UInt8] = AccessGate.systemRandom, sender: any MessageSender,
        receipts: ReceiptBook = ReceiptBook(),
        onDisplay: @escaping @Sendable (RemoteDisplay) -> Void = { _ in },
        onActivity: @escaping @Sendable (RemoteActivity) -> Void = { _ in },
        onChange: @escaping @Sendable () -> Void = {}
    ) {
        self.options = options
        self.clock = clock
        self.sender = sender
        self.receipts = receipts
        self.onDisplay = onDisplay
        self.onActivity = onActivity
        self.onChange = onChange
        state = Mutex(State(gate: AccessGate(policy: options.policy, randomBytes: randomBytes)))
        gate = MethodGate(caller: "a phone", permitted: options.methods.subtracting([.subscribeEvents]))
        requestGate = RequestGate(methods: gate, events: .elsewhere("reach a phone as receipts of what it sent"))
        instance = randomBytes(4).map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        tick()
    }

    public static func monotonicSeconds() -> Double { Double(MonotonicClock.nanoseconds()) / 1e9 }

    /// The hub's clock now.
    public var now: Double { clock() }

    // MARK: State

    /// Applies the gate's limits now: ends an idle (or closed) session (its connection is told why), rotates
    /// codes, lifts a lockout, and reports a change of display. Called by the remote's timer at
    /// ``nextDeadline``.
    public func tick() {
        let now = clock()
        let (kick, display) = state.withLock { state in
            var kick: ((AccessRefusal) -> Void, AccessRefusal)?
            if let (ended, reason) = state.gate.advance(to: now), let connection = state.connections[ended.id] {
                state.connections[ended.id] = nil
                kick = (connection.kick, reason)
            }
            return (kick, settle(&state))
        }
        if let (kicker, reason) = kick { kicker(reason) }
        if let display { onDisplay(display) }
    }

    /// Under the lock, after every change of the gate: tells its activities (in order) and returns a new display.
    private func settle(_ state: inout State) -> RemoteDisplay? {
        for activity in state.gate.takeActivities() { onActivity(activity) }
        let display = state.gate.display
        guard display != state.display else { return nil }
        state.display = display
        return display
    }

    /// What the screens should show now.
    public var display: RemoteDisplay {
        tick()
        return state.withLock { $0.gate.display }
    }

    /// When ``tick()`` next has something to do (monotonic seconds on the hub's clock); nil: nothing is due.
    public var nextDeadline: Double? { state.withLock { $0.gate.nextDeadline } }

    /// The gate's counters and the transport's, for `status`: claims, supersessions, refusals by reason
    /// (`refused.<reason>`, the connection limits' among them), connections closed by a timeout (`closed.*`),
    /// lockouts (`lockouts` for everyone, `addressLockouts` for one address; `lockedAddresses` now), open
    /// connections and WebSockets, codes issued and expired; whether a controller is active and for how many
    /// seconds (`controllerSeconds`), whether its page is connected (`controllerConnected`), and the current
    /// code's age (`codeAgeSeconds`).
    public var counters: [String: Int] {
        let now = clock()
        var counters = state.withLock { state in
            var counters = state.gate.counters.merging(state.counters) { a, _ in a }
            counters["controllerActive"] = state.gate.session == nil ? 0 : 1
            counters["controllerConnected"] = state.connections.isEmpty ? 0 : 1
            if let session = state.gate.session { counters["controllerSeconds"] = Int(now - session.claimedAt) }
            if let code = state.gate.code { counters["codeAgeSeconds"] = Int(now - code.issuedAt) }
            counters["locked"] = state.gate.lockedUntil == nil ? 0 : 1
            counters["lockedAddresses"] = state.gate.lockedAddressCount(at: now)
            return counters
        }
        counters.merge(receipts.counters) { a, _ in a }
        let open = connections.open
        counters["connectionsOpen"] = open.connections
        counters["webSocketsOpen"] = open.webSockets
        return counters
    }

    /// Adds one to a transport counter; returns its new value.
    @discardableResult
    func count(_ key: String) -> Int {
        state.withLock { state in
            state.counters[key, default: 0] += 1
            return state.counters[key]!
        }
    }

    /// Counts a refusal by `key` and logs it the 1st, 10th, 100th… time (with the total so far), so a client
    /// repeating it cannot flood the log. `what` is logged as it is: it must hold no raw outside text.
    func refuse(_ key: String, _ what: String) {
        let total = count(key)
        if Self.isPowerOfTen(total) { logger.warning("\(what) (\(key): \(total) so far)") }
    }

    /// 1, 10, 100, …
    static func isPowerOfTen(_ value: Int) -> Bool {
        var value = value
        while value >= 10 && value % 10 == 0 { value /= 10 }
        return value == 1
    }

    /// Live connections and WebSockets by client address, for the limits of ``Options/limits``.
    let connections = ConnectionCounter()

    // MARK: Sessions

    /// Exchanges a code for a session token; a superseded controller's connection is told and closed.
    /// - Parameter address: the client's IP address: its wrong codes lock it out alone (nil: not known).
    public func claim(_ code: String, from address: String? = nil) -> Result<String, AccessRefusal> {
        let now = clock()
        let (result, kick, display) = state.withLock { state in
            let result = state.gate.claim(code, from: address, at: now)
            var kick: (@Sendable (AccessRefusal) -> Void)?
            if case .success(let claimed) = result, let previous = claimed.superseded {
                kick = state.connections.removeValue(forKey: previous.id)?.kick
            }
            return (result, kick, settle(&state))
        }
        kick?(.superseded)
        if let display { onDisplay(display) }
        onChange()
        switch result {
        case .success(let claimed):
            logger.info(
                "remote control claimed",
                metadata: ["session": "\(claimed.session.id)", "superseded": "\(claimed.superseded?.id ?? 0)"])
            return .success(claimed.session.token)
        case .failure(let refusal):
            // Counted in `status`; logged the 1st, 10th, 100th… time, so guessing cannot flood the log.
            let (total, locked, addressLocked) = state.withLock { state in
                (
                    state.gate.counters["refused.\(refusal.rawValue)"] ?? 0, state.gate.lockedUntil != nil,
                    state.gate.isLockedOut(address ?? "", at: now)
                )
            }
            if Self.isPowerOfTen(total) { logger.notice("remote code refused: \(refusal.rawValue) (\(total) so far)") }
            if refusal == .wrongCode, locked {
                logger.warning("remote code entry locked for everyone after too many wrong codes")
            } else if refusal == .wrongCode, addressLocked {
                let lockouts = state.withLock { $0.gate.counters["addressLockouts"] ?? 0 }
                if Self.isPowerOfTen(lockouts) {
                    logger.warning("a client address is locked out after too many wrong codes (\(lockouts) so far)")
                }
            }
            return .failure(refusal)
        }
    }

    public func authorize(_ token: String) -> Result<ControllerSession, AccessRefusal> {
        let now = clock()
        return state.withLock { $0.gate.authorize(token, at: now) }
    }

    /// Gives control back and shows a fresh code.
    @discardableResult
    public func release(_ token: String) -> Bool {
        let now = clock()
        let (released, display) = state.withLock { state in
            let session = state.gate.session
            let released = state.gate.release(token, at: now)
            if released, let session { state.connections[session.id] = nil }
            return (released, settle(&state))
        }
        if let display { onDisplay(display) }
        onChange()
        if released { logger.info("remote control released") }
        return released
    }

    /// Registers the live connection of the session holding `token`; `kick` ends it with a reason. Returns the
    /// session and connection ids to detach with, or why the token is no good. The session's page counts as open
    /// (a closed one's grace ends).
    public func attach(
        _ token: String, kick: @escaping @Sendable (AccessRefusal) -> Void
    ) -> Result<(session: Int, connection: Int), AccessRefusal> {
        let now = clock()
        let (result, previous) = state.withLock { state in
            let result = state.gate.authorize(token, at: now)
            guard case .success(let session) = result else {
                return (result.map { (session: $0.id, connection: 0) }, (@Sendable (AccessRefusal) -> Void)?.none)
            }
            let connection = Connection(id: state.nextConnection, kick: kick)
            state.nextConnection += 1
            let previous = state.connections.updateValue(connection, forKey: session.id)
            state.gate.pageOpened(token, at: now)
            return (.success((session: session.id, connection: connection.id)), previous?.kick)
        }
        // One live connection per session: a second tab of the same session replaces the first.
        previous?(.superseded)
        return result
    }

    /// The connection ended. When it was its session's live one, the page counts as closed: control is released
    /// after ``AccessPolicy/closeGrace`` unless a page of the session connects again.
    public func detach(session id: Int, connection: Int, token: String) {
        let now = clock()
        let closed = state.withLock { state in
            guard state.connections[id]?.id == connection else { return false }
            state.connections[id] = nil
            state.gate.pageClosed(token, at: now)
            return true
        }
        if closed { onChange() }
    }

    // MARK: Requests

    /// Runs one message for the session holding `token`: checks the session (and counts the activity), the message
    /// against ``Options/methods`` (a phone names no file, whatever the method granted), then sends it to the display
    /// thread and waits for the reply.
    /// - Parameter requestID: the phone's `requestId`: a retry of it within the session is answered with the first
    ///   reply and not applied again (the display thread keeps it as ``retryKey(_:session:)``).
    public func perform(_ message: Message, token: String, requestID: String? = nil) async -> Reply {
        do throws(MessageError) {
            try gate.check(message)
        } catch {
            count("refused.not_permitted")
            return .error(error)
        }
        let now = clock()
        let touched = state.withLock { $0.gate.touch(token, at: now) }
        if case .failure(let refusal) = touched {
            count("refused.\(refusal.rawValue)")
            return .error(MessageError(.notPermitted, refusal.rawValue))
        }
        count("requests")
        guard case .success(let session) = touched else { return await sender.request(message, requestID: nil) }
        return await sender.request(message, requestID: requestID.map { retryKey($0, session: session.id) })
    }

    /// Where the display thread keeps a phone's `requestId`: in the session's own namespace (`phone.<hub>.<session>:`,
    /// the hub's part random per remote), so two phones (or two sessions of one) that both count 1, 2, 3 never
    /// answer each other's requests, and no other client (the CLI, the fleet) can reach a phone's ids. An id that
    /// would not fit the display thread's 64 bytes with the prefix is kept as a 128-bit FNV-1a digest of itself: a
    /// collision could only be between one session's own ids.
    func retryKey(_ id: String, session: Int) -> String {
        MessageCodec.requestID(id, prefix: "phone.\(instance).\(session):")
    }

    /// One WebSocket text message: decoded with the socket's codec, answered in its envelope (nil for a JSON-RPC
    /// notification), and the id of the message it sent when it sent one (its receipts are owed).
    public func handle(json bytes: [UInt8], token: String) async -> (line: String?, sent: UInt64?) {
        let admission = requestGate.admit(bytes)
        let reply: Reply
        switch admission {
        case .refused(let error, _):
            count(error.code == .notPermitted ? "refused.not_permitted" : "malformed")
            reply = .error(error)
        case .subscribe:
            preconditionFailure("a phone's gate never admits events.subscribe")
        case .message(let message, _, let requestID):
            reply = await perform(message, token: token, requestID: requestID)
        }
        var sent: UInt64?
        if case .result(.send, let result) = reply, case .integer(let id)? = result["id"], id >= 0 {
            sent = UInt64(id)
        }
        return (MessageCodec.encode(reply, in: admission.envelope), sent)
    }
}
