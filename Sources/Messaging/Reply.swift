/// The answer to one request: a result named after the request's method, or an error. Every request a producer
/// sends gets exactly one, in the order the requests were sent (the ring is FIFO); ``MessageCodec`` writes it as
/// `{"method": …, "result": {…}}` or `{"error": {"code": …, "message": …}}`.
public enum Reply: Equatable, Sendable {
    case result(method: MessageMethod, result: [String: JSONValue])
    case error(MessageError)

    /// `send`: the message's id, and the screen it was addressed to (null: every screen).
    public static func sent(id: UInt64, screen: String?) -> Reply {
        .result(method: .send, result: ["id": .integer(Int(id)), "screen": .optional(screen)])
    }

    /// `card.open`: the new card's id and its screen.
    public static func cardOpened(id: UInt64, screen: String) -> Reply {
        .result(method: .openCard, result: ["id": .integer(Int(id)), "screen": .string(screen)])
    }

    /// `card.close`: the closed card's id and its screen.
    public static func cardClosed(id: UInt64, screen: String) -> Reply {
        .result(method: .closeCard, result: ["id": .integer(Int(id)), "screen": .string(screen)])
    }

    /// `card.reopen`: the card's id and the screen it is open on now.
    public static func cardReopened(id: UInt64, screen: String) -> Reply {
        .result(method: .reopenCard, result: ["id": .integer(Int(id)), "screen": .string(screen)])
    }

    /// `card.discard`: the removed card's id.
    public static func cardDiscarded(id: UInt64) -> Reply {
        .result(method: .discardCard, result: ["id": .integer(Int(id))])
    }

    /// `role.set`: the screen and the role it now has.
    public static func roleSet(screen: String, role: String) -> Reply {
        .result(method: .setRole, result: ["screen": .string(screen), "role": .string(role)])
    }

    /// `role.reset`: the screen whose remembered role and mode were forgotten (null: every monitor's).
    public static func roleReset(screen: String?) -> Reply {
        .result(method: .resetRole, result: ["screen": .optional(screen)])
    }

    /// `content.set`: the screen and the mode it shows when it is not the controller.
    public static func contentSet(screen: String, mode: String) -> Reply {
        .result(method: .setContent, result: ["screen": .string(screen), "mode": .string(mode)])
    }

    /// `messages.clear`: the screen cleared (null: the whole log) and how many messages it stopped showing.
    public static func messagesCleared(screen: String?, count: Int) -> Reply {
        .result(method: .clearMessages, result: ["screen": .optional(screen), "cleared": .integer(count)])
    }

    /// `events.subscribe`, answered by the transport that holds the subscription.
    public static let subscribed = Reply.result(method: .subscribeEvents, result: [:])
}

extension JSONValue {
    /// A string, or null for nil.
    public static func optional(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }

    /// The members of an object; empty for anything else.
    public var objectValue: [String: JSONValue] {
        if case .object(let members) = self { return members }
        return [:]
    }
}
