import Logging
import Messaging
import Synchronization

/// The remote's shared state, whatever the route: the ``AccessGate`` (behind a mutex), the clock, the way to the
/// display thread, and the live WebSocket of the current controller so a newer claim can tell it `superseded`.
public final class RemoteHub: Sendable {
    public struct Options: Sendable {
        public var policy = AccessPolicy()
        /// Methods a remote session may call. `send` by default; `card.open`/`card.close` when configured.
        public var methods: Set<MessageMethod> = [.send]
        /// The largest WebSocket message or form body accepted, in bytes.
        public var maximumMessageBytes = 16 * 1024
        /// Messages per second one connection may send before being answered `busy`.
        public var messagesPerSecond: Double = 10

        public init() {}
    }

    public let options: Options
    private let clock: @Sendable () -> Double
    private let sender: any MessageSender
    let logger = Logger(label: "multiscreen.remote")
    private struct State {
        var gate: AccessGate
        /// Session id → how to end that session's live connection.
        var kickers: [Int: @Sendable (AccessRefusal) -> Void] = [:]
        var display: RemoteDisplay?
        var counters: [String: Int] = [:]
    }
    private let state: Mutex<State>
    private let onDisplay: @Sendable (RemoteDisplay) -> Void

    /// - Parameters:
    ///   - clock: monotonic seconds (injected by tests).
    ///   - onDisplay: called, outside the lock, whenever what the screens should show changes.
    public init(
        options: Options = Options(), clock: @escaping @Sendable () -> Double = RemoteHub.monotonicSeconds,
        randomBytes: @escaping @Sendable (Int) -> [UInt8] = AccessGate.systemRandom, sender: any MessageSender,
        onDisplay: @escaping @Sendable (RemoteDisplay) -> Void = { _ in }
    ) {
        self.options = options
        self.clock = clock
        self.sender = sender
        self.onDisplay = onDisplay
        state = Mutex(State(gate: AccessGate(policy: options.policy, randomBytes: randomBytes)))
        tick()
    }

    public static func monotonicSeconds() -> Double { Double(MonotonicClock.nanoseconds()) / 1e9 }

    // MARK: State

    /// Applies the gate's limits now: ends an idle session (its connection is told `idle`), rotates codes, and
    /// reports a change of display. Call about once a second.
    public func tick() {
        let now = clock()
        let (kick, display) = state.withLock { state in
            var kick: ((AccessRefusal) -> Void, AccessRefusal)?
            if let (ended, reason) = state.gate.advance(to: now), let kicker = state.kickers[ended.id] {
                state.kickers[ended.id] = nil
                kick = (kicker, reason)
            }
            return (kick, Self.displayChange(&state))
        }
        if let (kicker, reason) = kick { kicker(reason) }
        if let display { onDisplay(display) }
    }

    private static func displayChange(_ state: inout State) -> RemoteDisplay? {
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

    /// The gate's counters and the transport's, for `status`: claims, supersessions, refusals by reason
    /// (`refused.<reason>`), lockouts, codes issued and expired; whether a controller is active and for how many
    /// seconds (`controllerSeconds`), and the current code's age (`codeAgeSeconds`).
    public var counters: [String: Int] {
        let now = clock()
        return state.withLock { state in
            var counters = state.gate.counters.merging(state.counters) { a, _ in a }
            counters["controllerActive"] = state.gate.session == nil ? 0 : 1
            if let session = state.gate.session { counters["controllerSeconds"] = Int(now - session.claimedAt) }
            if let code = state.gate.code { counters["codeAgeSeconds"] = Int(now - code.issuedAt) }
            counters["locked"] = state.gate.lockedUntil == nil ? 0 : 1
            return counters
        }
    }

    func count(_ key: String) { state.withLock { $0.counters[key, default: 0] += 1 } }

    // MARK: Sessions

    /// Exchanges a code for a session token; a superseded controller's connection is told and closed.
    public func claim(_ code: String) -> Result<String, AccessRefusal> {
        let now = clock()
        let (result, kick, display) = state.withLock { state in
            let result = state.gate.claim(code, at: now)
            var kick: (@Sendable (AccessRefusal) -> Void)?
            if case .success(let claimed) = result, let previous = claimed.superseded {
                kick = state.kickers.removeValue(forKey: previous.id)
            }
            return (result, kick, Self.displayChange(&state))
        }
        kick?(.superseded)
        if let display { onDisplay(display) }
        switch result {
        case .success(let claimed):
            logger.info(
                "remote control claimed",
                metadata: ["session": "\(claimed.session.id)", "superseded": "\(claimed.superseded?.id ?? 0)"])
            return .success(claimed.session.token)
        case .failure(let refusal):
            logger.notice("remote code refused: \(refusal.rawValue)")
            if refusal == .wrongCode, state.withLock({ $0.gate.lockedUntil != nil }) {
                logger.warning("remote code entry locked after too many wrong codes")
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
            if released, let session { state.kickers[session.id] = nil }
            return (released, Self.displayChange(&state))
        }
        if let display { onDisplay(display) }
        if released { logger.info("remote control released") }
        return released
    }

    /// Registers the live connection of the session holding `token`; `kick` ends it with a reason. Returns the
    /// session id to detach with, or why the token is no good.
    public func attach(_ token: String, kick: @escaping @Sendable (AccessRefusal) -> Void) -> Result<Int, AccessRefusal>
    {
        let now = clock()
        let (result, previous) = state.withLock { state in
            let result = state.gate.authorize(token, at: now)
            guard case .success(let session) = result else {
                return (result.map { $0.id }, (@Sendable (AccessRefusal) -> Void)?.none)
            }
            let previous = state.kickers[session.id]
            state.kickers[session.id] = kick
            return (.success(session.id), previous)
        }
        // One live connection per session: a second tab of the same session replaces the first.
        previous?(.superseded)
        return result
    }

    public func detach(session id: Int) {
        state.withLock { _ = $0.kickers.removeValue(forKey: id) }
    }

    // MARK: Requests

    /// Runs one message for the session holding `token`: checks the session (and counts the activity), the method
    /// against ``Options/methods``, then sends it to the display thread and waits for the reply.
    public func perform(_ message: Message, token: String) async -> Reply {
        guard options.methods.contains(message.method) else {
            count("refused.not_permitted")
            return .error(
                MessageError(.notPermitted, "\(message.method.rawValue) is not permitted to a remote controller"))
        }
        let now = clock()
        let touched = state.withLock { $0.gate.touch(token, at: now) }
        if case .failure(let refusal) = touched {
            count("refused.\(refusal.rawValue)")
            return .error(MessageError(.notPermitted, refusal.rawValue))
        }
        count("requests")
        return await sender.request(message)
    }

    /// One WebSocket text message: decoded with the socket's codec, answered in its envelope (nil for a JSON-RPC
    /// notification).
    public func handle(json bytes: [UInt8], token: String) async -> String? {
        let decoded: (request: Request, envelope: Envelope)
        do {
            decoded = try MessageCodec.decode(bytes: bytes)
        } catch {
            count("malformed")
            return MessageCodec.encode(.error(error.error), in: error.envelope)
        }
        let reply: Reply
        switch decoded.request {
        case .subscribeEvents:
            count("refused.not_permitted")
            reply = .error(MessageError(.notPermitted, "events.subscribe is not permitted to a remote controller"))
        case .message(let message):
            reply = await perform(message, token: token)
        }
        return MessageCodec.encode(reply, in: decoded.envelope)
    }
}
