/// The one check every request passes, whatever transport brought it: its size, the codec, the producer's
/// allow-list, and whether this transport can stream events. Each refusal has one error code and one wording, so the
/// same bad request gets the same answer from the local socket, the fleet, a phone and a page.
public struct RequestGate: Sendable {
    /// How a transport's clients hear of events.
    public enum Events: Sendable, Equatable {
        /// `events.subscribe` turns the connection into an event stream (the local socket).
        case subscribe
        /// Events reach this transport's clients another way, named in the refusal of `events.subscribe`: "are
        /// published on site/kiosk/events", "are handed to every page".
        case elsewhere(String)
    }

    /// What one request became.
    public enum Admission: Equatable, Sendable {
        /// A message for the display thread, with the client's retry key (`requestId`), if it gave one.
        case message(Message, Envelope, requestID: String?)
        /// `events.subscribe` on a transport that streams events.
        case subscribe(Envelope)
        /// Refused before the ring: answer `error` in `envelope`.
        case refused(MessageError, Envelope)

        public var envelope: Envelope {
            switch self {
            case .message(_, let envelope, _), .subscribe(let envelope), .refused(_, let envelope): envelope
            }
        }
    }

    /// Which methods the clients may call; nil: all of them (the local socket, whose peer is the kiosk's own user).
    public var methods: MethodGate?
    public var events: Events
    /// Whether a request must carry an `id`: on a transport whose replies share one channel, a reply without one
    /// could not be told from another client's.
    public var requiresID: Bool

    public init(methods: MethodGate?, events: Events, requiresID: Bool = false) {
        self.methods = methods
        self.events = events
        self.requiresID = requiresID
    }

    /// Decodes `bytes` (a JSON request, at most ``MessageCodec/maximumRequestBytes``) and checks it.
    public func admit(_ bytes: [UInt8]) -> Admission {
        let decoded: (request: Request, envelope: Envelope, requestID: String?)
        do throws(MessageCodec.DecodeError) {
            decoded = try MessageCodec.decode(bytes: bytes)
        } catch {
            return .refused(error.error, error.envelope)
        }
        let envelope = decoded.envelope
        if requiresID && envelope.id == nil {
            return .refused(
                MessageError(.invalidRequest, "a request needs an \"id\" (a non-empty string or an integer)"), envelope)
        }
        do throws(MessageError) {
            switch (decoded.request, events) {
            case (.message(let message), _):
                try methods?.check(message)
                return .message(message, envelope, requestID: decoded.requestID)
            case (.subscribeEvents, .subscribe):
                try methods?.check(.subscribeEvents)
                return .subscribe(envelope)
            case (.subscribeEvents, .elsewhere(let how)):
                // Whatever the allow-list says: there is no stream to subscribe to here.
                let caller = methods?.caller ?? "this connection"
                throw MessageError(
                    .notPermitted,
                    "\(MessageMethod.subscribeEvents.rawValue) is not available to \(caller): events \(how)")
            }
        } catch {
            return .refused(error, envelope)
        }
    }

    /// The counter a refusal goes under in each transport's `status`: `rejectedBusy` (the ring was full),
    /// `notAllowed` (the allow-list), `malformed` (anything else: not a valid request).
    public static func counter(for error: MessageError) -> String {
        switch error.code {
        case .busy: "rejectedBusy"
        case .notPermitted: "notAllowed"
        default: "malformed"
        }
    }
}
