/// The JSON form of messages at the edges (network, CLI, tests):
///
/// - request: `{"method": "card.open", "params": {"screen": "left", "text": "Hello"}}`
/// - result: `{"method": "card.open", "result": {...}}`
/// - error: `{"error": {"code": -32601, "message": "no method \"card.flip\""}}`
/// - event (to subscribers): `{"method": "role.changed", "params": {...}}` (``Event``)
///
/// Methods and their params (all strings; `params` may be omitted when there are none):
///
/// | method       | params                                  |
/// |--------------|-----------------------------------------|
/// | `send`       | `text`, optional `screen`               |
/// | `card.open`  | `screen`, `text`                        |
/// | `card.close` | `screen`                                |
/// | `role.set`   | `screen`, `role`                        |
/// | `status`     | none                                    |
/// | `outputs`    | none                                    |
/// | `events.subscribe` | none (answered by the transport)  |
///
/// Unknown keys are errors, at the top level and in `params`: a misspelt parameter should not be ignored silently.
/// Error codes are ``MessageError/Code``.
public enum MessageCodec {
    /// The largest request accepted, in bytes, checked before parsing: the largest text
    /// (``Message/maximumTextBytes``) written entirely as `\uXXXX` escapes, plus room for the rest.
    public static let maximumRequestBytes = 6 * Message.maximumTextBytes + 4096

    // MARK: Requests

    /// A request line that must be a ``Message`` (a subscription is refused as `invalidRequest`): for callers
    /// that hold no subscriptions.
    public static func decodeRequest(_ text: String) throws(MessageError) -> Message {
        try decodeRequest(bytes: Array(text.utf8))
    }

    public static func decodeRequest(bytes: [UInt8]) throws(MessageError) -> Message {
        switch try decode(bytes: bytes) {
        case .message(let message): return message
        case .subscribeEvents:
            throw MessageError(.invalidRequest, "\(MessageMethod.subscribeEvents.rawValue) is not available here")
        }
    }

    /// Any request line: a message for the display thread, or `events.subscribe`.
    public static func decode(bytes: [UInt8]) throws(MessageError) -> Request {
        if bytes.count > maximumRequestBytes {
            throw MessageError(
                .requestTooLarge, "request is \(bytes.count) bytes, the limit is \(maximumRequestBytes)")
        }
        guard case .object(let request) = try JSONValue.parse(bytes) else {
            throw MessageError(.invalidRequest, "a request is a JSON object")
        }
        if let unknown = request.keys.sorted().first(where: { $0 != "method" && $0 != "params" }) {
            throw MessageError(.invalidRequest, "unknown key \"\(unknown)\" (a request has \"method\" and \"params\")")
        }
        guard case .string(let name) = request["method"] else {
            throw MessageError(.invalidRequest, "\"method\" must be a string")
        }
        guard let method = MessageMethod(rawValue: name) else {
            let known = MessageMethod.allCases.map(\.rawValue).joined(separator: ", ")
            throw MessageError(.methodNotFound, "no method \"\(name)\" (known: \(known))")
        }
        var params: [String: JSONValue] = [:]
        switch request["params"] {
        case nil: break
        case .object(let object): params = object
        default: throw MessageError(.invalidRequest, "\"params\" must be an object")
        }
        var reader = ParamsReader(method: method, params: params)
        let message: Message
        switch method {
        case .send: message = .send(text: try reader.string("text"), screen: try reader.optionalString("screen"))
        case .openCard: message = .openCard(screen: try reader.string("screen"), text: try reader.string("text"))
        case .closeCard: message = .closeCard(screen: try reader.string("screen"))
        case .setRole: message = .setRole(screen: try reader.string("screen"), role: try reader.string("role"))
        case .status: message = .status
        case .outputs: message = .outputs
        case .subscribeEvents:
            try reader.rejectUnread()
            return .subscribeEvents
        }
        try reader.rejectUnread()
        try message.validate()
        return .message(message)
    }

    public static func encodeRequest(_ message: Message) -> String {
        var params: [String: JSONValue] = [:]
        switch message {
        case .send(let text, let screen):
            params["text"] = .string(text)
            if let screen { params["screen"] = .string(screen) }
        case .openCard(let screen, let text):
            params["screen"] = .string(screen)
            params["text"] = .string(text)
        case .closeCard(let screen):
            params["screen"] = .string(screen)
        case .setRole(let screen, let role):
            params["screen"] = .string(screen)
            params["role"] = .string(role)
        case .status, .outputs:
            break
        }
        return JSONValue.object(["method": .string(message.method.rawValue), "params": .object(params)]).serialized
    }

    // MARK: Replies

    /// One reply line (keys sorted, like every line this codec writes).
    public static func encode(_ reply: Reply) -> String {
        switch reply {
        case .result(let method, let result):
            return JSONValue.object(["method": .string(method.rawValue), "result": .object(result)]).serialized
        case .error(let error):
            return JSONValue.object([
                "error": .object(["code": .integer(error.code.rawValue), "message": .string(error.message)])
            ]).serialized
        }
    }

    public static func encodeError(_ error: MessageError) -> String { encode(.error(error)) }

    // MARK: Events

    /// An event line, in the form of a JSON-RPC notification: `{"method":"<name>","params":{...}}`.
    public static func encode(_ event: Event) -> String {
        JSONValue.object(["method": .string(event.name), "params": .object(event.params)]).serialized
    }

    /// Reads an event line (the subscriber's side). - Throws: ``MessageError`` when it is not an event.
    public static func decodeEvent(_ text: String) throws(MessageError) -> Event {
        guard case .object(let line) = try JSONValue.parse(Array(text.utf8)), line.count == 2,
            case .string(let name) = line["method"], case .object(let params) = line["params"]
        else { throw MessageError(.invalidRequest, "an event has \"method\" and \"params\"") }
        return Event(name: name, params: params)
    }

    /// Reads a reply (the client side). - Throws: ``MessageError`` when the text is not a well-formed reply.
    public static func decodeResponse(_ text: String) throws(MessageError) -> Reply {
        guard case .object(let response) = try JSONValue.parse(Array(text.utf8)) else {
            throw MessageError(.invalidRequest, "a response is a JSON object")
        }
        if case .object(let error)? = response["error"], response.count == 1 {
            guard case .integer(let number) = error["code"], let code = MessageError.Code(rawValue: number),
                case .string(let message) = error["message"], error.count == 2
            else { throw MessageError(.invalidRequest, "malformed error object") }
            return .error(MessageError(code, message))
        }
        guard response.count == 2, case .string(let name) = response["method"],
            case .object(let result) = response["result"]
        else { throw MessageError(.invalidRequest, "a response has \"method\" and \"result\", or \"error\"") }
        guard let method = MessageMethod(rawValue: name) else {
            throw MessageError(.methodNotFound, "no method \"\(name)\"")
        }
        return .result(method: method, result: result)
    }
}

/// Takes typed params out of a request's `params`, remembering which were read so the rest can be rejected.
private struct ParamsReader {
    let method: MessageMethod
    var params: [String: JSONValue]

    mutating func optionalString(_ name: String) throws(MessageError) -> String? {
        switch params.removeValue(forKey: name) {
        case nil: return nil
        case .string(let value)?: return value
        default: throw MessageError(.invalidParams, "\"\(name)\" of \(method.rawValue) must be a string")
        }
    }

    mutating func string(_ name: String) throws(MessageError) -> String {
        guard let value = try optionalString(name) else {
            throw MessageError(.invalidParams, "\(method.rawValue) needs \"\(name)\"")
        }
        return value
    }

    func rejectUnread() throws(MessageError) {
        if let unknown = params.keys.sorted().first {
            throw MessageError(.invalidParams, "\(method.rawValue) has no parameter \"\(unknown)\"")
        }
    }
}
