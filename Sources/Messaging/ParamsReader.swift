import Outputs

/// Takes typed params out of a request's `params`, remembering which were read so the rest can be rejected.
struct ParamsReader {
    let method: MessageMethod
    var params: [String: JSONValue]

    mutating func optionalString(_ name: String) throws(MessageError) -> String? {
        switch params.removeValue(forKey: name) {
        case nil: return nil
        case .string(let value)?: return value
        default: throw MessageError(.invalidParams, "\"\(name)\" of \(method.rawValue) must be a string")
        }
    }

    mutating func optionalNumber(_ name: String) throws(MessageError) -> Double? {
        switch params.removeValue(forKey: name) {
        case nil: return nil
        case .integer(let value)?: return Double(value)
        case .number(let value)?: return value
        default: throw MessageError(.invalidParams, "\"\(name)\" of \(method.rawValue) must be a number")
        }
    }

    /// A card's `id`: a positive integer (card ids start at 1).
    mutating func cardID() throws(MessageError) -> UInt32 {
        switch params.removeValue(forKey: "id") {
        case nil: throw MessageError(.invalidParams, "\(method.rawValue) needs \"id\"")
        case .integer(let value)? where value > 0 && value <= Int(UInt32.max): return UInt32(value)
        default:
            throw MessageError(.invalidParams, "\"id\" of \(method.rawValue) must be a card id (a positive integer)")
        }
    }

    mutating func optionalBool(_ name: String) throws(MessageError) -> Bool? {
        switch params.removeValue(forKey: name) {
        case nil: return nil
        case .bool(let value)?: return value
        default: throw MessageError(.invalidParams, "\"\(name)\" of \(method.rawValue) must be true or false")
        }
    }

    /// One of an enumeration's names (`fit`: `contain`, `cover`…), nil when absent.
    mutating func optionalEnum<Value: RawRepresentable & CaseIterable>(_ name: String, _: Value.Type)
        throws(MessageError) -> Value? where Value.RawValue == String
    {
        guard let text = try optionalString(name) else { return nil }
        guard let value = Value(rawValue: text) else {
            let known = Value.allCases.map(\.rawValue).joined(separator: ", ")
            throw MessageError(.invalidParams, "\"\(name)\" of \(method.rawValue) must be one of \(known)")
        }
        return value
    }

    /// `offset` of `playlist.set`: a screen's place in a spread, a whole number from 0 (the default).
    mutating func offset() throws(MessageError) -> Int {
        guard let value = try optionalNumber("offset") else { return 0 }
        guard value == value.rounded(), value >= 0, value < Double(Playlist.mostItems) else {
            throw MessageError(.invalidParams, "\"offset\" must be a whole number from 0 to \(Playlist.mostItems - 1)")
        }
        return Int(value)
    }

    /// `items`: an array of `{"source": PATH_OR_URL, "seconds": N}` (a video may leave out `seconds` to play its own
    /// length: ``Playlist/problem(items:)`` checks which may), each with an optional `"sha256"` (lower-cased here;
    /// checked there too), an optional window, `"from"` and `"until"` (seconds since 1970), and an optional
    /// `"transition"` (`"cut"`, `"crossfade"`).
    mutating func playlistItems() throws(MessageError) -> [Playlist.Item] {
        guard case .array(let values)? = params.removeValue(forKey: "items") else {
            throw MessageError(.invalidParams, "\(method.rawValue) needs \"items\", an array")
        }
        var items: [Playlist.Item] = []
        for (index, value) in values.enumerated() {
            let place = "item \(index + 1) of \(method.rawValue)"
            guard case .object(let fields) = value,
                fields.keys.allSatisfy({ ["source", "seconds", "sha256", "from", "until", "transition"].contains($0) }),
                case .string(let source)? = fields["source"]
            else {
                throw MessageError(.invalidParams, "\(place) must be {\"source\": PATH_OR_URL, \"seconds\": N}")
            }
            let sha256: String?
            switch fields["sha256"] {
            case nil: sha256 = nil
            case .string(let value)?: sha256 = value.lowercased()
            default:
                throw MessageError(.invalidParams, "\(place): \"sha256\" must be a string of 64 hexadecimal digits")
            }
            let seconds: Double?
            switch fields["seconds"] {
            case nil: seconds = nil
            case .integer(let value)?: seconds = Double(value)
            case .number(let value)?: seconds = value
            default: throw MessageError(.invalidParams, "\(place): \"seconds\" must be a number")
            }
            var window: [String: Double] = [:]
            for key in ["from", "until"] {
                switch fields[key] {
                case nil: break
                case .integer(let value)?: window[key] = Double(value)
                case .number(let value)? where value.isFinite: window[key] = value
                default: throw MessageError(.invalidParams, "\(place): \"\(key)\" must be seconds since 1970")
                }
            }
            var transition: PlaylistTransition?
            switch fields["transition"] {
            case nil: break
            case .string(let name)? where PlaylistTransition(rawValue: name) != nil:
                transition = PlaylistTransition(rawValue: name)
            default: throw MessageError(.invalidParams, "\(place): \"transition\" must be \"cut\" or \"crossfade\"")
            }
            items.append(
                Playlist.Item(
                    source: source, seconds: seconds, sha256: sha256, from: window["from"], until: window["until"],
                    transition: transition))
        }
        return items
    }

    /// `playlist.interrupt`'s own params, `screen` read already: `"clear": true` alone, or `items` (as
    /// ``playlistItems()`` reads them) or `playlist` (a config playlist's name), with optional `fit`, `seconds` and
    /// `epoch`.
    mutating func interrupt() throws(MessageError) -> InterruptRequest {
        if try optionalBool("clear") == true {
            // Ending an interrupt takes nothing else: items or seconds beside it would be a request misread.
            if let other = params.keys.sorted().first {
                throw MessageError(.invalidParams, "\"clear\" of \(method.rawValue) takes no \"\(other)\"")
            }
            return .clear
        }
        let source: InterruptRequest.Source
        switch (params["items"] != nil, params["playlist"] != nil) {
        case (true, true):
            throw MessageError(.invalidParams, "\(method.rawValue) takes \"items\" or \"playlist\", not both")
        case (false, false):
            throw MessageError(.invalidParams, "\(method.rawValue) needs \"items\", \"playlist\" or \"clear\": true")
        case (true, false): source = .items(try playlistItems())
        case (false, true): source = .named(try string("playlist"))
        }
        return .start(
            source: source, fit: try optionalEnum("fit", MediaFit.self), seconds: try optionalNumber("seconds"),
            epoch: try optionalNumber("epoch"))
    }

    /// `rotate`: 0, 90, 180 or 270 (degrees clockwise), nil when absent.
    mutating func rotation() throws(MessageError) -> MediaRotation? {
        switch params.removeValue(forKey: "rotate") {
        case nil: return nil
        case .integer(let degrees)?: if let rotation = MediaRotation(rawValue: degrees) { return rotation }
        default: break
        }
        throw MessageError(.invalidParams, "\"rotate\" of \(method.rawValue) must be 0, 90, 180 or 270")
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
