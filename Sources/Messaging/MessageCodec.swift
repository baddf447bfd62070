import Outputs

/// The JSON form of messages at the edges (network, CLI, tests):
///
/// - request: `{"method": "card.open", "params": {"screen": "left", "text": "Hello"}}`
/// - result: `{"method": "card.open", "result": {...}}`
/// - error: `{"error": {"code": -32601, "message": "no method \"card.flip\""}}`
/// - event (to subscribers): `{"method": "role.changed", "params": {...}}` (``Event``)
/// - the same in JSON-RPC 2.0 form: `{"jsonrpc": "2.0", "id": 1, "method": …, "params": …}` answered by
///   `{"jsonrpc": "2.0", "id": 1, "result": …}` or `{"jsonrpc": "2.0", "id": 1, "error": …}` (``Envelope``).
///
/// Methods and their params (`params` may be omitted when there are none); docs/protocol.md is the full reference:
///
/// | method            | params                                                   |
/// |-------------------|----------------------------------------------------------|
/// | `send`            | `text`, optional `screen`, optional `ttl` (seconds)      |
/// | `card.open`       | `screen`, `text`                                         |
/// | `card.close`      | `screen`                                                 |
/// | `card.reopen`     | `id`, `screen`                                           |
/// | `card.discard`    | `id`                                                     |
/// | `role.set`        | `screen`, `role`, optional `force` (bool)                |
/// | `role.reset`      | optional `screen`                                        |
/// | `content.set`     | `screen`, `mode`                                         |
/// | `messages.clear`  | optional `screen`                                        |
/// | `status`          | none                                                     |
/// | `outputs`         | none                                                     |
/// | `events.subscribe`| none (answered by the transport)                         |
/// | `web.open`        | `screen`, `url`                                          |
/// | `web.close`       | `screen`                                                 |
/// | `web.reload`      | `screen`                                                 |
/// | `media.show`      | `screen`, `path`, optional `fit`, `rotate` (degrees), `loop`, `audio`, `at` |
/// | `media.stop`      | `screen`                                                 |
/// | `playlist.set`    | `screen`, `items` (`source`, `seconds`), optional `fit`, `epoch` |
/// | `playlist.clear`  | `screen`                                                 |
/// | `playlist.interrupt` | `screen`, `items` or `playlist` (a config playlist's name), optional `seconds`, `epoch`, `fit`; or `screen`, `clear` |
/// | `screen.identify` | optional `seconds` (1 to 60, default 5)                  |
///
/// Unknown keys are errors, at the top level and in `params`: a misspelt parameter should not be ignored silently.
/// Error codes are ``MessageError/Code``.
public enum MessageCodec {
    /// The largest request accepted, in bytes, checked before parsing: the largest text
    /// (``Message/maximumTextBytes``) written entirely as `\uXXXX` escapes, plus room for the rest.
    public static let maximumRequestBytes = 6 * Message.maximumTextBytes + 4096

    /// A request line that could not be decoded, with the envelope its error reply must take (as much of it as
    /// could be read: a line that is not JSON is answered in JSON-RPC form with a null id only if it said so).
    public struct DecodeError: Error, Equatable, Sendable {
        public var error: MessageError
        public var envelope: Envelope
    }

    // MARK: Requests

    /// A request line that must be a ``Message`` in Multiscreen's own form: for callers that hold no
    /// subscriptions and answer in one form (the CLI's and the tests' side).
    public static func decodeRequest(_ text: String) throws(MessageError) -> Message {
        try decodeRequest(bytes: Array(text.utf8))
    }

    public static func decodeRequest(bytes: [UInt8]) throws(MessageError) -> Message {
        let request: Request
        do {
            request = try decode(bytes: bytes).request
        } catch {
            throw error.error
        }
        switch request {
        case .message(let message): return message
        case .subscribeEvents:
            throw MessageError(.invalidRequest, "\(MessageMethod.subscribeEvents.rawValue) is not available here")
        }
    }

    /// The longest request id a client may give (`"requestId"`): room for a UUID and a prefix of its own.
    public static let maximumRequestIDBytes = 64

    /// A request id is 1 to ``maximumRequestIDBytes`` bytes of printable ASCII: it is echoed into no log, but it
    /// is kept, compared and may be shown, so nothing that could hide or forge anything.
    public static func validateRequestID(_ id: String) throws(MessageError) {
        guard !id.isEmpty, id.utf8.count <= maximumRequestIDBytes, id.utf8.allSatisfy({ (0x21...0x7e).contains($0) })
        else {
            throw MessageError(
                .invalidRequest,
                "\"requestId\" must be 1 to \(maximumRequestIDBytes) printable ASCII characters without spaces")
        }
    }

    /// A client's id under a producer's `prefix` (a phone's session, the fleet link), so that clients of one
    /// producer never share ids: `prefix` + `id` when that is a valid request id, else `prefix` + `#` + a 128-bit
    /// digest of `id` (two 64-bit FNV-1a hashes), so a long or unusual id (a fleet request's JSON id) still counts.
    public static func requestID(_ id: String, prefix: String) -> String {
        let plain = prefix + id
        if (try? validateRequestID(plain)) != nil { return plain }
        return prefix + "#" + FNV1a.hex(id.utf8) + FNV1a.hex(id.utf8, basis: 0x6c62_272e_07bb_0142)
    }

    /// Any request line: a message for the display thread, or `events.subscribe`, the form to answer in, and the
    /// client's request id if it gave one (`"requestId"`: a retry with the same id is answered, not applied again).
    public static func decode(
        bytes: [UInt8]
    ) throws(DecodeError) -> (request: Request, envelope: Envelope, requestID: String?) {
        let object: [String: JSONValue]
        do throws(MessageError) {
            if bytes.count > maximumRequestBytes {
                throw MessageError(
                    .requestTooLarge, "request is \(bytes.count) bytes, the limit is \(maximumRequestBytes)")
            }
            guard case .object(let parsed) = try JSONValue.parse(bytes) else {
                throw MessageError(.invalidRequest, "a request is a JSON object")
            }
            object = parsed
        } catch {
            throw DecodeError(error: error, envelope: .plain)
        }
        return try decode(object: object)
    }

    /// A request already parsed from JSON (a transport that reads keys of its own first, as the fleet link reads
    /// its `id`, hands the rest over without writing it out and parsing it again).
    public static func decode(
        object: [String: JSONValue]
    ) throws(DecodeError) -> (request: Request, envelope: Envelope, requestID: String?) {
        var envelope = Envelope.plain
        var request = object
        do throws(MessageError) {
            if request["jsonrpc"] == nil, let id = request.removeValue(forKey: "id") {
                switch id {
                case .string(let text) where !text.isEmpty: envelope = .tagged(id: id)
                case .integer: envelope = .tagged(id: id)
                default: throw MessageError(.invalidRequest, "\"id\" must be a non-empty string or an integer")
                }
            }
            if let version = request.removeValue(forKey: "jsonrpc") {
                let id = request.removeValue(forKey: "id")
                envelope = .jsonRPC(id: id)
                guard version == .string("2.0") else {
                    throw MessageError(.invalidRequest, "\"jsonrpc\" must be \"2.0\"")
                }
                switch id {
                case nil, .null?, .string?, .integer?: break
                default: throw MessageError(.invalidRequest, "\"id\" must be a string, an integer or null")
                }
            }
            var requestID: String?
            switch request.removeValue(forKey: "requestId") {
            case nil: break
            case .string(let id)?:
                try validateRequestID(id)
                requestID = id
            default:
                throw MessageError(.invalidRequest, "\"requestId\" must be a string")
            }
            return (try decode(request), envelope, requestID)
        } catch {
            throw DecodeError(error: error, envelope: envelope)
        }
    }

    private static func decode(_ request: [String: JSONValue]) throws(MessageError) -> Request {
        if let unknown = request.keys.sorted().first(where: { $0 != "method" && $0 != "params" }) {
            throw MessageError(
                .invalidRequest,
                "unknown key \"\(unknown)\" (a request has \"method\", \"params\", \"id\" and \"requestId\")")
        }
        guard case .string(let name) = request["method"] else {
            throw MessageError(.invalidRequest, "\"method\" must be a string")
        }
        // Methods internal to Multiscreen (the phone remote's offer and activity) are not there for anyone outside:
        // asked for by name, they are unknown like any other, and the list of known methods leaves them out.
        guard let method = MessageMethod(rawValue: name), !method.isInternal else {
            let known = MessageMethod.allCases.filter { !$0.isInternal }.map(\.rawValue).joined(separator: ", ")
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
        case .send:
            message = .send(
                text: try reader.string("text"), screen: try reader.optionalString("screen"),
                ttl: try reader.optionalNumber("ttl"))
        case .openCard: message = .openCard(screen: try reader.string("screen"), text: try reader.string("text"))
        case .closeCard: message = .closeCard(screen: try reader.string("screen"))
        case .reopenCard: message = .reopenCard(id: try reader.cardID(), screen: try reader.string("screen"))
        case .discardCard: message = .discardCard(id: try reader.cardID())
        case .setRole:
            message = .setRole(
                screen: try reader.string("screen"), role: try reader.string("role"),
                force: try reader.optionalBool("force") ?? false)
        case .resetRole: message = .resetRole(screen: try reader.optionalString("screen"))
        case .setContent: message = .setContent(screen: try reader.string("screen"), mode: try reader.string("mode"))
        case .clearMessages: message = .clearMessages(screen: try reader.optionalString("screen"))
        case .status: message = .status
        case .outputs: message = .outputs
        case .openWeb: message = .openWeb(screen: try reader.string("screen"), url: try reader.string("url"))
        case .closeWeb: message = .closeWeb(screen: try reader.string("screen"))
        case .reloadWeb: message = .reloadWeb(screen: try reader.string("screen"))
        case .showMedia:
            message = .showMedia(
                screen: try reader.string("screen"), path: try reader.string("path"),
                fit: try reader.optionalEnum("fit", MediaFit.self) ?? .contain,
                rotation: try reader.rotation() ?? .none, loop: try reader.optionalBool("loop") ?? false,
                audio: try reader.optionalBool("audio") ?? false, at: try reader.optionalNumber("at"))
        case .stopMedia: message = .stopMedia(screen: try reader.string("screen"))
        case .setPlaylist:
            message = .setPlaylist(
                screen: try reader.string("screen"),
                playlist: Playlist(
                    items: try reader.playlistItems(), fit: try reader.optionalEnum("fit", MediaFit.self) ?? .contain,
                    epoch: try reader.optionalNumber("epoch") ?? 0, offset: try reader.offset()))
        case .clearPlaylist: message = .clearPlaylist(screen: try reader.string("screen"))
        case .interruptPlaylist:
            message = .interruptPlaylist(screen: try reader.string("screen"), request: try reader.interrupt())
        case .playlistHistory:
            let limit = try reader.optionalNumber("limit") ?? Double(Message.defaultHistoryRecords)
            guard limit == limit.rounded(), abs(limit) <= 1e6 else {
                throw MessageError(.invalidParams, "\"limit\" must be a whole number")
            }
            message = .playlistHistory(screen: try reader.optionalString("screen"), limit: Int(limit))
        case .showPlaylist: message = .showPlaylist(screen: try reader.string("screen"))
        case .nextPlaylistItem, .previousPlaylistItem, .pausePlaylist, .resumePlaylist:
            message = .stepPlaylist(
                screen: try reader.string("screen"), step: method.playlistStep!, at: try reader.optionalNumber("at"))
        case .showSchedule: message = .showSchedule(screen: try reader.optionalString("screen"))
        case .setSchedule:
            message = .setSchedule(screen: try reader.string("screen"), schedule: try reader.optionalString("schedule"))
        case .identifyScreens:
            message = .identifyScreens(seconds: try reader.optionalNumber("seconds") ?? Message.defaultIdentifySeconds)
        case .captureScreen:
            message = .captureScreen(screen: try reader.string("screen"), path: try reader.optionalString("path"))
        case .remoteOffer, .remoteActivity:
            preconditionFailure("internal methods are refused above")
        case .subscribeEvents:
            try reader.rejectUnread()
            return .subscribeEvents
        }
        try reader.rejectUnread()
        try message.validate()
        return .message(message)
    }

    /// A request line; with `requestID`, retrying the same line applies it once (``decode(bytes:)``).
    public static func encodeRequest(_ message: Message, requestID: String? = nil) -> String {
        var params: [String: JSONValue] = [:]
        switch message {
        case .send(let text, let screen, let ttl):
            params["text"] = .string(text)
            if let screen { params["screen"] = .string(screen) }
            if let ttl { params["ttl"] = .number(ttl) }
        case .openCard(let screen, let text):
            params["screen"] = .string(screen)
            params["text"] = .string(text)
        case .setPlaylist(let screen, let playlist):
            params["screen"] = .string(screen)
            params["items"] = json(playlist.items)
            if playlist.fit != .contain { params["fit"] = .string(playlist.fit.rawValue) }
            if playlist.epoch != 0 { params["epoch"] = .number(playlist.epoch) }
            if playlist.offset != 0 { params["offset"] = .integer(playlist.offset) }
        case .interruptPlaylist(let screen, .clear):
            params["screen"] = .string(screen)
            params["clear"] = .bool(true)
        case .interruptPlaylist(let screen, .start(let source, let fit, let seconds, let epoch)):
            params["screen"] = .string(screen)
            switch source {
            case .items(let items): params["items"] = json(items)
            case .named(let name): params["playlist"] = .string(name)
            }
            if let fit { params["fit"] = .string(fit.rawValue) }
            if let seconds { params["seconds"] = .number(seconds) }
            if let epoch { params["epoch"] = .number(epoch) }
        case .closeCard(let screen), .closeWeb(let screen), .reloadWeb(let screen), .stopMedia(let screen),
            .clearPlaylist(let screen), .showPlaylist(let screen):
            params["screen"] = .string(screen)
        case .stepPlaylist(let screen, _, let at):
            params["screen"] = .string(screen)
            if let at { params["at"] = .number(at) }
        case .showSchedule(let screen):
            if let screen { params["screen"] = .string(screen) }
        case .setSchedule(let screen, let schedule):
            params["screen"] = .string(screen)
            if let schedule { params["schedule"] = .string(schedule) }
        case .identifyScreens(let seconds):
            if seconds != Message.defaultIdentifySeconds { params["seconds"] = .number(seconds) }
        case .captureScreen(let screen, let path):
            params["screen"] = .string(screen)
            if let path { params["path"] = .string(path) }
        case .playlistHistory(let screen, let limit):
            if let screen { params["screen"] = .string(screen) }
            if limit != Message.defaultHistoryRecords { params["limit"] = .integer(limit) }
        case .showMedia(let screen, let path, let fit, let rotation, let loop, let audio, let at):
            params["screen"] = .string(screen)
            params["path"] = .string(path)
            if fit != .contain { params["fit"] = .string(fit.rawValue) }
            if rotation != .none { params["rotate"] = .integer(rotation.rawValue) }
            if loop { params["loop"] = .bool(true) }
            if audio { params["audio"] = .bool(true) }
            if let at { params["at"] = .number(at) }
        case .openWeb(let screen, let url):
            params["screen"] = .string(screen)
            params["url"] = .string(url)
        case .reopenCard(let id, let screen):
            params["id"] = .integer(Int(id))
            params["screen"] = .string(screen)
        case .discardCard(let id):
            params["id"] = .integer(Int(id))
        case .setRole(let screen, let role, let force):
            params["screen"] = .string(screen)
            params["role"] = .string(role)
            if force { params["force"] = .bool(true) }
        case .resetRole(let screen), .clearMessages(let screen):
            if let screen { params["screen"] = .string(screen) }
        case .setContent(let screen, let mode):
            params["screen"] = .string(screen)
            params["mode"] = .string(mode)
        case .status, .outputs:
            break
        case .remoteOffer(let link, let code, let locked):
            params["link"] = .string(link)
            params["code"] = .string(code)
            params["locked"] = .bool(locked)
        case .remoteActivity(let activity):
            params = activity.event.params
            params["kind"] = .string(activity.kind.rawValue)
        }
        var line: [String: JSONValue] = ["method": .string(message.method.rawValue), "params": .object(params)]
        if let requestID { line["requestId"] = .string(requestID) }
        return JSONValue.object(line).serialized
    }

    /// A playlist's items as `playlist.set` and `playlist.interrupt` take them.
    private static func json(_ items: [Playlist.Item]) -> JSONValue {
        .array(
            items.map { item in
                var fields: [String: JSONValue] = ["source": .string(item.source)]
                if let seconds = item.seconds { fields["seconds"] = .number(seconds) }
                if let sha256 = item.sha256 { fields["sha256"] = .string(sha256) }
                if let from = item.from { fields["from"] = .number(from) }
                if let until = item.until { fields["until"] = .number(until) }
                if let transition = item.transition { fields["transition"] = .string(transition.rawValue) }
                return .object(fields)
            })
    }

    // MARK: Replies

    /// One reply line (keys sorted, like every line this codec writes).
    public static func encode(_ reply: Reply) -> String { encode(reply, in: .plain)! }

    /// One reply line in the form of the request; nil for a JSON-RPC notification, which gets no reply.
    public static func encode(_ reply: Reply, in envelope: Envelope) -> String? {
        value(of: reply, in: envelope)?.serialized
    }

    /// A reply in the form of the request, as a JSON value (for a transport that embeds it in a larger document, as
    /// a page's packets do); nil for a JSON-RPC notification.
    public static func value(of reply: Reply, in envelope: Envelope) -> JSONValue? {
        var line: [String: JSONValue]
        switch reply {
        case .result(let method, let result):
            line = ["result": .object(result)]
            if case .jsonRPC = envelope {} else { line["method"] = .string(method.rawValue) }
        case .error(let error):
            line = ["error": .object(["code": .integer(error.code.rawValue), "message": .string(error.message)])]
        }
        switch envelope {
        case .plain:
            break
        case .tagged(let id):
            line["id"] = id
        case .jsonRPC(nil):
            // A notification is answered only when it could not be read as one (JSON-RPC 2.0, section 5).
            guard case .error = reply else { return nil }
            line["jsonrpc"] = .string("2.0")
            line["id"] = .null
        case .jsonRPC(let id?):
            line["jsonrpc"] = .string("2.0")
            line["id"] = id
        }
        return .object(line)
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
