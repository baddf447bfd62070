import Messaging
import Synchronization
import SystemCalls

/// One screen showed one message the remote sent: the second acknowledgement of a send, after its reply.
public struct ShownReceipt: Equatable, Sendable {
    public var id: UInt64
    public var screen: String
    /// `presented` (the compositor's `wp_presentation` time), `frameDone` (the frame callback, where no
    /// presentation time comes) or `lost` (never shown: the window went away).
    public var source: String
    /// `CLOCK_MONOTONIC` nanoseconds; nil when lost.
    public var shownAt: UInt64?
    /// From the remote putting the message in its ring to `shownAt`, in milliseconds.
    public var milliseconds: Double?
    /// How many screens have shown it so far, this one included.
    public var screens: Int

    /// The notification the phone receives: `{"method": "message.shown", "params": {…}}`.
    public var line: String {
        JSONValue.object([
            "method": .string(Self.method),
            "params": .object([
                "id": .integer(Int(clamping: id)), "screen": .string(screen), "source": .string(source),
                "shownAt": shownAt.map { .integer(Int(clamping: $0)) } ?? .null,
                "ms": milliseconds.map { .number(($0 * 1000).rounded() / 1000) } ?? .null,
                "screens": .integer(screens),
            ]),
        ]).serialized
    }

    public static let method = "message.shown"
}

/// The messages the remote sent whose receipts are still owed, matched against the display thread's `frame.shown`
/// events. The display thread builds those events only while some sink wants events, so the remote's sink wants
/// them only while a receipt is owed, and for at most ``lifetime`` after each send.
public final class ReceiptBook: Sendable {
    private struct Watch {
        let owner: Int
        let registeredAt: UInt64
        var screens = 0
        let deliver: @Sendable (ShownReceipt) -> Void
    }
    private struct State {
        var watches: [UInt64: Watch] = [:]
        var delivered = 0
        var expired = 0
    }
    private let state = Mutex(State())
    /// How long a send's receipts are waited for.
    public let lifetime: UInt64

    public init(lifetimeSeconds: Double = 10) {
        lifetime = UInt64(lifetimeSeconds * 1e9)
    }

    /// Receipts for message `id` go to `deliver` (called on the display thread: it must not block), until
    /// ``forget(owner:)`` or ``lifetime``.
    public func watch(id: UInt64, owner: Int, deliver: @escaping @Sendable (ShownReceipt) -> Void) {
        let now = MonotonicClock.nanoseconds()
        state.withLock { state in
            Self.expire(&state, now: now, lifetime: lifetime)
            state.watches[id] = Watch(owner: owner, registeredAt: now, deliver: deliver)
        }
    }

    /// The connection `owner` ended: its receipts are no longer wanted.
    public func forget(owner: Int) {
        state.withLock { state in state.watches = state.watches.filter { $0.value.owner != owner } }
    }

    /// Whether any receipt is owed now (read by the display thread before it builds events).
    public var wantsEvents: Bool {
        let now = MonotonicClock.nanoseconds()
        return state.withLock { state in
            Self.expire(&state, now: now, lifetime: lifetime)
            return !state.watches.isEmpty
        }
    }

    /// An event from the display thread: a `frame.shown` naming a watched message delivers its receipt.
    public func take(_ event: Event) {
        guard event.name == Event.Name.frameShown.rawValue, case .string(let screen)? = event.params["screen"],
            case .array(let messages)? = event.params["messages"]
        else { return }
        var source = "frameDone"
        if case .string(let named)? = event.params["source"] { source = named }
        var shownAt: UInt64?
        if case .integer(let time)? = event.params["shownAt"], time >= 0 { shownAt = UInt64(time) }
        var due: [(@Sendable (ShownReceipt) -> Void, ShownReceipt)] = []
        state.withLock { state in
            for case .object(let message) in messages {
                guard case .integer(let number)? = message["id"], number >= 0 else { continue }
                let id = UInt64(number)
                guard var watch = state.watches[id] else { continue }
                watch.screens += 1
                state.watches[id] = watch
                state.delivered += 1
                var milliseconds: Double?
                if let shownAt, case .integer(let enqueued)? = message["enqueuedAt"], enqueued > 0 {
                    milliseconds = (Double(shownAt) - Double(enqueued)) / 1e6
                }
                due.append(
                    (
                        watch.deliver,
                        ShownReceipt(
                            id: id, screen: screen, source: source, shownAt: shownAt, milliseconds: milliseconds,
                            screens: watch.screens)
                    ))
            }
        }
        for (deliver, receipt) in due { deliver(receipt) }
    }

    /// `receiptsDelivered`, `receiptsWaiting`, `receiptsExpired` (sends whose screens never all reported within the
    /// lifetime are normal: a send to fewer screens; the count says how many watches ran out).
    public var counters: [String: Int] {
        state.withLock { state in
            [
                "receiptsDelivered": state.delivered, "receiptsWaiting": state.watches.count,
                "receiptsExpired": state.expired,
            ]
        }
    }

    private static func expire(_ state: inout State, now: UInt64, lifetime: UInt64) {
        guard !state.watches.isEmpty else { return }
        let before = state.watches.count
        state.watches = state.watches.filter { now &- $0.value.registeredAt < lifetime }
        state.expired += before - state.watches.count
    }
}
