/// Something that happened to the phone remote's control, as its producer tells the display thread so that event
/// subscribers hear it in order with everything else (`remote.claimed`, `remote.superseded`, `remote.released`,
/// `remote.locked`).
public struct RemoteActivity: Equatable, Hashable, Sendable {
    public enum Kind: String, CaseIterable, Sendable {
        /// A code was exchanged for control.
        case claimed
        /// A newer claim took control from this session (`detail`: the newer session's number).
        case superseded
        /// Control ended: `detail` says how (`release`, `closed`: the page closed, `idle`).
        case released
        /// Too many wrong codes: code entry is locked (`detail`: for how many seconds).
        case locked
    }

    public var kind: Kind
    /// The session's number (counted from 1 since the remote started); 0 for `locked`.
    public var session: UInt32
    public var detail: String

    public init(kind: Kind, session: UInt32, detail: String = "") {
        self.kind = kind
        self.session = session
        self.detail = detail
    }

    /// The event subscribers receive.
    public var event: Event {
        let name = "remote.\(kind.rawValue)"
        switch kind {
        case .claimed: return Event(name: name, params: ["session": .integer(Int(session))])
        case .superseded:
            return Event(name: name, params: ["session": .integer(Int(session)), "by": .integer(Int(detail) ?? 0)])
        case .released:
            return Event(name: name, params: ["session": .integer(Int(session)), "reason": .string(detail)])
        case .locked: return Event(name: name, params: ["seconds": .integer(Int(detail) ?? 0)])
        }
    }
}
