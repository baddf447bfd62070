import ConfigFile
import Foundation
import Messaging
import TOMLKit
import TOMLPrecheck

/// The `[fleet]` section of `config.toml`: where the broker is, who this kiosk is, and what the fleet may ask of it.
/// Absent, the kiosk has no fleet link (the default). Read from the same file as the role rules, which leave the
/// section to this type.
///
/// ```toml
/// [fleet]
/// broker = "mqtt://127.0.0.1:1883"     # or mqtts://host:8883
/// site = "sfo"
/// kiosk = "t2-gate-a"                   # default: the host name
/// groups = ["terminal-2"]
/// # ca = "…", cert = "…", key = "…", credentials = "/etc/multiscreen/mqtt.pass"
/// # allow = ["send", "card.*", "status"]   # methods a fleet command may call
/// # media = ["/srv/signage"]               # where media.show and playlist.set (when allowed) may name files
/// # keepalive = 30                         # seconds; a dead kiosk shows offline within about 1.5× this
/// ```
///
/// Secrets never come from the command line (visible in `ps` to every user): the username and password are read
/// from the `credentials` file (`username:password` on its first line), which should be readable by the kiosk's
/// user only.
public struct FleetConfig: Equatable, Sendable {
    public var broker: BrokerAddress
    public var site: String
    public var kiosk: String
    public var groups: [String]
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    public var credentialsFile: String?
    /// Method patterns a fleet command may call: exact names or a prefix ending in `*` (`card.*`).
    public var allow: [String]
    /// Where a fleet command may name files (`media.show`, `playlist.set`, when `allow` grants them); nil: nowhere.
    public var media: MediaDirectories?
    public var keepAlive: Int

    public static let defaultAllow = ["send", "card.*", "status"]

    public init(
        broker: BrokerAddress, site: String = "default", kiosk: String = FleetConfig.hostName(),
        groups: [String] = [], allow: [String] = FleetConfig.defaultAllow, keepAlive: Int = 30
    ) {
        self.broker = broker
        self.site = site
        self.kiosk = kiosk
        self.groups = groups
        self.allow = allow
        self.keepAlive = keepAlive
    }

    /// Whether a fleet command may call `method`.
    public func allows(_ method: String) -> Bool {
        allow.contains { pattern in
            pattern.hasSuffix("*") ? method.hasPrefix(pattern.dropLast()) : method == pattern
        }
    }

    /// `allow` resolved into the gate the fleet link's requests pass (its patterns matched against every method).
    public var gate: MethodGate {
        MethodGate(
            caller: "the fleet link", permitted: Set(MessageMethod.allCases.filter { allows($0.rawValue) }),
            files: media)
    }

    public var topics: FleetTopics { FleetTopics(site: site, kiosk: kiosk) }

    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "kiosk" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // A host name may be "kiosk.example.org": the first label is the kiosk's name.
        return String(name.split(separator: ".").first ?? "kiosk")
    }

    // MARK: Reading

    /// The `[fleet]` section of the config at `path`; nil when the file or the section is absent.
    public static func load(path: String) throws(FleetConfigError) -> FleetConfig? {
        let text: String?
        do throws(ConfigFile.Problem) {
            text = try ConfigFile.text(at: path)
        } catch {
            throw FleetConfigError("\(path): \(error)")
        }
        guard let text else { return nil }
        do {
            return try parse(text)
        } catch {
            throw FleetConfigError("\(path): \(error.message)")
        }
    }

    /// The `[fleet]` section of a config's text; nil without one.
    public static func parse(_ text: String) throws(FleetConfigError) -> FleetConfig? {
        let root: TOMLTable
        do throws(ConfigFile.Problem) {
            root = try ConfigFile.table(text)
        } catch {
            throw FleetConfigError("\(error)")
        }
        guard let section = root["fleet"] else { return nil }
        guard let table = section.table else { throw FleetConfigError("'fleet' must be a table ([fleet])") }
        let known = [
            "broker", "site", "kiosk", "groups", "ca", "cert", "key", "credentials", "allow", "media", "keepalive",
        ]
        if let unknown = table.keys.sorted().first(where: { !known.contains($0) }) {
            throw FleetConfigError(
                "unknown key 'fleet.\(unknown)' (expected one of: \(known.joined(separator: ", ")))")
        }
        func string(_ key: String) throws(FleetConfigError) -> String? {
            guard let value = table[key] else { return nil }
            guard let text = value.string else { throw FleetConfigError("'fleet.\(key)' must be a string") }
            return text
        }
        func strings(_ key: String) throws(FleetConfigError) -> [String]? {
            guard let value = table[key] else { return nil }
            guard let array = value.array, array.allSatisfy({ $0.string != nil }) else {
                throw FleetConfigError("'fleet.\(key)' must be an array of strings")
            }
            return (0..<array.count).map { array[$0].string! }
        }
        guard let brokerText = try string("broker") else { throw FleetConfigError("missing key 'fleet.broker'") }
        var config = FleetConfig(broker: try BrokerAddress(brokerText))
        if let site = try string("site") { config.site = site }
        if let kiosk = try string("kiosk") { config.kiosk = kiosk }
        if let groups = try strings("groups") { config.groups = groups }
        if let allow = try strings("allow") { config.allow = allow }
        if let media = try strings("media") {
            do throws(MessageError) {
                config.media = try MediaDirectories(media)
            } catch {
                throw FleetConfigError("'fleet.media': \(error.message)")
            }
        }
        config.caFile = try string("ca")
        config.certFile = try string("cert")
        config.keyFile = try string("key")
        config.credentialsFile = try string("credentials")
        if let value = table["keepalive"] {
            guard let seconds = value.int, (5...3600).contains(seconds) else {
                throw FleetConfigError("'fleet.keepalive' must be a whole number of seconds from 5 to 3600")
            }
            config.keepAlive = seconds
        }
        try config.validate()
        return config
    }

    /// Names that would make topics ambiguous or unsubscribable are refused.
    public func validate() throws(FleetConfigError) {
        try Self.checkName(site, key: "site")
        try Self.checkName(kiosk, key: "kiosk")
        for group in groups { try Self.checkName(group, key: "groups") }
        if kiosk == FleetTopics.all || groups.contains(FleetTopics.all) {
            throw FleetConfigError("\"\(FleetTopics.all)\" is the whole site; it cannot name a kiosk or a group")
        }
        if groups.contains(kiosk) {
            throw FleetConfigError("the group \"\(kiosk)\" has the kiosk's own name; choose another")
        }
        if (certFile == nil) != (keyFile == nil) {
            throw FleetConfigError("'fleet.cert' and 'fleet.key' go together")
        }
    }

    /// A topic level: not empty, no `/`, `+` or `#` (MQTT wildcards and separators), printable.
    public static func checkName(_ name: String, key: String) throws(FleetConfigError) {
        if name.isEmpty || name.utf8.count > 128
            || name.unicodeScalars.contains(where: { "/+#".unicodeScalars.contains($0) || $0.value < 0x20 })
        {
            throw FleetConfigError(
                "'fleet.\(key)' = \"\(name)\": a name is 1-128 bytes without '/', '+', '#' or control characters")
        }
    }

    /// The username and password from ``credentialsFile`` (`username:password` on the first line).
    public func credentials() throws(FleetConfigError) -> (username: String, password: String)? {
        guard let path = credentialsFile else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else { throw FleetConfigError("\(path): cannot read the credentials file") }
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
            throw FleetConfigError("\(path): the first line must be username:password")
        }
        return (String(line[..<colon]), String(line[line.index(after: colon)...]))
    }
}

/// `mqtt://host[:port]` (plain, port 1883) or `mqtts://host[:port]` (TLS, port 8883).
public struct BrokerAddress: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var tls: Bool

    public init(_ text: String) throws(FleetConfigError) {
        let scheme: String
        let rest: Substring
        if let range = text.range(of: "://") {
            scheme = String(text[..<range.lowerBound]).lowercased()
            rest = text[range.upperBound...]
        } else {
            throw FleetConfigError("broker \"\(text)\": expected mqtt://host[:port] or mqtts://host[:port]")
        }
        switch scheme {
        case "mqtt", "tcp": tls = false
        case "mqtts", "ssl": tls = true
        default: throw FleetConfigError("broker \"\(text)\": the scheme is mqtt:// or mqtts://")
        }
        let authority = rest.hasSuffix("/") ? rest.dropLast() : rest
        if authority.contains("@") || authority.contains("/") {
            throw FleetConfigError(
                "broker \"\(text)\": give host and port only (credentials belong in the credentials file)")
        }
        var host = String(authority)
        var port = tls ? 8883 : 1883
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {  // [::1]:1883
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()) else {
                    throw FleetConfigError("broker \"\(text)\": bad port")
                }
                port = number
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard let number = Int(authority[authority.index(after: colon)...]) else {
                throw FleetConfigError("broker \"\(text)\": bad port")
            }
            port = number
        }
        guard !host.isEmpty, (1...65535).contains(port) else {
            throw FleetConfigError("broker \"\(text)\": needs a host and a port from 1 to 65535")
        }
        self.host = host
        self.port = port
    }

    public var description: String { "\(tls ? "mqtts" : "mqtt")://\(host):\(port)" }
}

public struct FleetConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// Control characters from the config (a value typed with a bell in it) are escaped: the message goes to the log
    /// as it is.
    public init(_ message: String) { self.message = message.logSafe }
    public var description: String { message }
}

/// The topics of one site, as documented in docs/fleet.md ("Topics").
public struct FleetTopics: Equatable, Sendable {
    public static let root = "multiscreen"
    /// The group every kiosk of a site belongs to.
    public static let all = "all"

    public var site: String
    public var kiosk: String

    public init(site: String, kiosk: String) {
        self.site = site
        self.kiosk = kiosk
    }

    /// Requests for a kiosk, a group or `all`.
    public static func command(site: String, target: String) -> String { "\(root)/\(site)/\(target)/cmd" }
    public static func reply(site: String, kiosk: String) -> String { "\(root)/\(site)/\(kiosk)/reply" }
    public static func status(site: String, kiosk: String) -> String { "\(root)/\(site)/\(kiosk)/status" }
    public static func online(site: String, kiosk: String) -> String { "\(root)/\(site)/\(kiosk)/online" }
    public static func events(site: String, kiosk: String) -> String { "\(root)/\(site)/\(kiosk)/events" }
    /// The retained playlist document for a kiosk, a group or `all`, named as its `cmd` topic is.
    public static func playlist(site: String, target: String) -> String { "\(root)/\(site)/\(target)/playlist" }
    /// Proof of play: each `playlist.played` record, QoS 1, held while the broker is unreachable.
    public static func history(site: String, kiosk: String) -> String { "\(root)/\(site)/\(kiosk)/history" }

    public var reply: String { Self.reply(site: site, kiosk: kiosk) }
    public var status: String { Self.status(site: site, kiosk: kiosk) }
    public var online: String { Self.online(site: site, kiosk: kiosk) }
    public var events: String { Self.events(site: site, kiosk: kiosk) }
    public var history: String { Self.history(site: site, kiosk: kiosk) }
    public func commands(groups: [String]) -> [String] {
        ([kiosk] + groups + [Self.all]).map { Self.command(site: site, target: $0) }
    }
    /// The playlist topics a kiosk reads, most specific first: its own, its groups' in order, the site's.
    public func playlists(groups: [String]) -> [String] {
        ([kiosk] + groups + [Self.all]).map { Self.playlist(site: site, target: $0) }
    }

    /// The kiosk a `multiscreen/<site>/<kiosk>/<leaf>` topic belongs to, if it is one with that leaf.
    public static func kiosk(in topic: String, site: String, leaf: String) -> String? {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == root, parts[1] == site, parts[3] == leaf else { return nil }
        return String(parts[2])
    }
}
