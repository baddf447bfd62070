/// A ``Message`` as it sits in a ring slot: plain values only, so pushing and popping it never retains, releases
/// or allocates. Its strings are in the producer's ``TextSlab``, back to back from `textStart`: first the body
/// (the text, or the role of `role.set`), then the screen name.
struct MessageSlot: BitwiseCopyable {
    var method: UInt8
    var hasScreen: Bool
    var bodyLength: UInt32
    var screenLength: UInt32
    var textStart: UInt
    var enqueuedAt: UInt64

    /// The slab position just past this message's bytes: what the consumer frees up to once it has read them.
    var textEnd: UInt { textStart &+ UInt(bodyLength) &+ UInt(screenLength) }

    /// The strings that go to the slab, body then screen, and the slot with everything else filled in.
    static func parts(of message: Message) -> (body: String, screen: String?, method: MessageMethod) {
        switch message {
        case .send(let text, let screen): (text, screen, .send)
        case .openCard(let screen, let text): (text, screen, .openCard)
        case .closeCard(let screen): ("", screen, .closeCard)
        case .setRole(let screen, let role): (role, screen, .setRole)
        case .status: ("", nil, .status)
        case .outputs: ("", nil, .outputs)
        }
    }

    /// Rebuilds the message from the slot and its slab bytes (on the display thread, where allocating is fine).
    func message(in slab: TextSlab) -> Message {
        let body = String(decoding: slab.bytes(at: textStart, count: Int(bodyLength)), as: UTF8.self)
        let screen =
            hasScreen
            ? String(
                decoding: slab.bytes(at: textStart &+ UInt(bodyLength), count: Int(screenLength)), as: UTF8.self)
            : nil
        switch MessageMethod.allCases[Int(method)] {
        case .send: return .send(text: body, screen: screen)
        case .openCard: return .openCard(screen: screen ?? "", text: body)
        case .closeCard: return .closeCard(screen: screen ?? "")
        case .setRole: return .setRole(screen: screen ?? "", role: body)
        case .status: return .status
        case .outputs: return .outputs
        case .subscribeEvents: preconditionFailure("events.subscribe is answered by its transport, never queued")
        }
    }
}

extension MessageMethod {
    /// The slot's one-byte code: the position in `allCases`.
    var slotCode: UInt8 { UInt8(Self.allCases.firstIndex(of: self)!) }
}
