import Messaging

/// A playlist document retained on a `…/playlist` topic (docs/fleet.md, "A playlist for a group"): what the screens
/// of the kiosks it reaches should play, rather than a command to play it once.
///
/// ```json
/// {"items": [{"source": "/srv/signage/menu.png", "seconds": 20}], "fit": "cover", "epoch": 0,
///  "screens": ["HDMI-A-2"]}
/// ```
/// `screens` is a list of screen names or `"all-external"`. The items, `fit` and `epoch` are `playlist.set`'s params
/// as they are: the kiosk checks them by sending `playlist.set` through the fleet link's gate like any command, so a
/// document can hold nothing a command could not.
public struct DesiredPlaylist: Equatable, Sendable {
    public enum Screens: Equatable, Sendable {
        case named([String])
        /// Every screen that is not the controller, those plugged in later included.
        case allExternal
    }

    /// The word that stands for ``Screens/allExternal`` in a document.
    public static let allExternalWord = "all-external"

    /// `playlist.set`'s `items`, unchecked here (the gate checks them).
    public var items: [JSONValue]
    public var fit: String?
    public var epoch: Double?
    public var screens: Screens
    /// A short name for the document as retained (FNV-1a of its bytes, hex): it tells in `status` which one is in
    /// force, and two kiosks that report the same digest play the same document.
    public var digest: String

    public init(items: [JSONValue], fit: String? = nil, epoch: Double? = nil, screens: Screens, digest: String = "") {
        self.items = items
        self.fit = fit
        self.epoch = epoch
        self.screens = screens
        self.digest = digest
    }

    /// The document the operator retains (``digest`` is not part of it).
    public var document: JSONValue {
        var fields: [String: JSONValue] = ["items": .array(items)]
        if let fit { fields["fit"] = .string(fit) }
        if let epoch { fields["epoch"] = .number(epoch) }
        switch screens {
        case .named(let names): fields["screens"] = .array(names.map { .string($0) })
        case .allExternal: fields["screens"] = .string(Self.allExternalWord)
        }
        return .object(fields)
    }

    /// One item of a document, as `playlist.set` takes it (no seconds: a video that plays its own length).
    public static func item(source: String, seconds: Double?) -> JSONValue {
        var fields: [String: JSONValue] = ["source": .string(source)]
        if let seconds { fields["seconds"] = .number(seconds) }
        return .object(fields)
    }

    /// The document retained on a topic; nil for an empty payload (the document is withdrawn).
    /// - Throws: `requestTooLarge` past a command's size limit, `parseError` for what is not JSON, `invalidRequest`
    ///   for JSON that is not a playlist document, each saying what is wrong.
    public static func parse(_ payload: [UInt8]) throws(MessageError) -> DesiredPlaylist? {
        if payload.isEmpty { return nil }
        if payload.count > MessageCodec.maximumRequestBytes {
            throw MessageError(
                .requestTooLarge,
                "the playlist document is \(payload.count) bytes, the limit is \(MessageCodec.maximumRequestBytes)")
        }
        guard case .object(let fields) = try JSONValue.parse(payload) else {
            throw MessageError(.invalidRequest, "a playlist document is a JSON object")
        }
        let known = ["items", "fit", "epoch", "screens"]
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw MessageError(
                .invalidRequest,
                "unknown key \"\(unknown)\" in a playlist document (expected: \(known.joined(separator: ", ")))")
        }
        guard case .array(let items)? = fields["items"] else {
            throw MessageError(.invalidRequest, "a playlist document needs \"items\", an array")
        }
        var fit: String?
        switch fields["fit"] {
        case nil, .null?: break
        case .string(let text)?: fit = text
        default: throw MessageError(.invalidRequest, "\"fit\" in a playlist document is a string")
        }
        var epoch: Double?
        switch fields["epoch"] {
        case nil, .null?: break
        case .integer(let seconds)?: epoch = Double(seconds)
        case .number(let seconds)?: epoch = seconds
        default:
            throw MessageError(.invalidRequest, "\"epoch\" in a playlist document is a number (seconds since 1970)")
        }
        let screens: Screens
        switch fields["screens"] {
        case .string(let word)? where word == allExternalWord:
            screens = .allExternal
        case .array(let names)?:
            var list: [String] = []
            for name in names {
                guard case .string(let text) = name, !text.isEmpty else {
                    throw MessageError(.invalidRequest, "\"screens\" in a playlist document lists screen names")
                }
                if !list.contains(text) { list.append(text) }
            }
            guard !list.isEmpty else {
                throw MessageError(.invalidRequest, "\"screens\" in a playlist document names no screen")
            }
            screens = .named(list)
        default:
            throw MessageError(
                .invalidRequest,
                "a playlist document needs \"screens\": a list of screen names or \"\(allExternalWord)\"")
        }
        return DesiredPlaylist(items: items, fit: fit, epoch: epoch, screens: screens, digest: digest(of: payload))
    }

    /// The `playlist.set` request for one screen, as an operator would publish it on a `cmd` topic.
    public func request(screen: String, id: String) -> [UInt8] {
        var params: [String: JSONValue] = ["screen": .string(screen), "items": .array(items)]
        if let fit { params["fit"] = .string(fit) }
        if let epoch { params["epoch"] = .number(epoch) }
        let line: JSONValue = .object([
            "id": .string(id), "method": .string(MessageMethod.setPlaylist.rawValue), "params": .object(params),
        ])
        return Array(line.serialized.utf8)
    }

    /// The screens of `external` (the screens that are not the controller, as the last `status` listed them) that
    /// this document is for, in its order.
    public func targets(among external: [String]) -> [String] {
        switch screens {
        case .allExternal: external
        case .named(let names): names.filter(external.contains)
        }
    }

    /// FNV-1a, 64 bits, in hex: a name for a document, not a guard against forgery (the broker's ACL is that).
    public static func digest(of bytes: [UInt8]) -> String { FNV1a.hex(bytes) }
}
