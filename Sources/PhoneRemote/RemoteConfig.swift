import ConfigFile
import Foundation
import Messaging
import Outputs
import TOMLKit
import TOMLPrecheck

/// The `[remote]` section of `config.toml`: the phone remote's address, its code and session times, who may reach
/// it, TLS and what a remote session may do. Present, it turns the remote on (like `run --remote`); every key a
/// command-line flag also sets is overridden by that flag. Read from the same file as the role rules, which leave
/// the section to this type.
///
/// ```toml
/// [remote]
/// listen = "192.168.1.20:8080"          # [HOST:]PORT; HOST defaults to 127.0.0.1
/// ttl = 300                             # seconds an unused code lasts
/// idle = 60                             # seconds without a message before control ends
/// hold = 300                            # seconds of control before the next visitor may take over
/// allow_origins = ["kiosk.example.org"] # more names (or origins) the page is reached by
/// tls_cert = "/etc/multiscreen/remote.pem"
/// tls_key = "/etc/multiscreen/remote.key"
/// methods = ["send", "card.open", "card.close"]
/// qr_position = "bottom-right"          # the corner the QR code goes in
/// qr_screens = ["HDMI-A-2"]             # which external screens show it (default: all showing messages)
/// ```
public struct RemoteConfig: Equatable, Sendable {
    public var listen: ListenAddress?
    public var ttl: Double?
    public var idle: Double?
    public var hold: Double?
    /// Host names, `host:port` authorities or origins (`https://kiosk.example.org`) besides the listen address.
    public var allowOrigins: [String] = []
    public var tls: TLSFiles?
    public var methods: Set<MessageMethod>?
    /// Where the QR code goes, and on which screens.
    public var qrPlacement = RemoteOfferPlacement()

    public static let keys = [
        "listen", "ttl", "idle", "hold", "allow_origins", "tls_cert", "tls_key", "methods", "qr_position",
        "qr_screens",
    ]
    /// The longest any of the durations may be: a day.
    public static let longestDuration: Double = 86_400
    /// Methods a remote session may be granted: every method of the wire but the transport's own.
    public static let grantableMethods = MessageMethod.allCases.filter {
        $0 != .subscribeEvents && !$0.isInternal
    }

    public init() {}

    /// The `[remote]` section of the config at `path`; nil when the file or the section is absent.
    public static func load(path: String) throws(RemoteConfigError) -> RemoteConfig? {
        let text: String?
        do throws(ConfigFile.Problem) {
            text = try ConfigFile.text(at: path)
        } catch {
            throw RemoteConfigError("\(path): \(error)")
        }
        guard let text else { return nil }
        do {
            return try parse(text)
        } catch {
            throw RemoteConfigError("\(path): \(error.message)")
        }
    }

    /// The `[remote]` section of a config's text; nil without one.
    public static func parse(_ text: String) throws(RemoteConfigError) -> RemoteConfig? {
        let root: TOMLTable
        do throws(ConfigFile.Problem) {
            root = try ConfigFile.table(text)
        } catch {
            throw RemoteConfigError("\(error)")
        }
        guard let section = root["remote"] else { return nil }
        guard let table = section.table else { throw RemoteConfigError("'remote' must be a table ([remote])") }
        if let unknown = table.keys.sorted().first(where: { !keys.contains($0) }) {
            throw RemoteConfigError(
                "unknown key 'remote.\(unknown)' (expected one of: \(keys.joined(separator: ", ")))")
        }
        var config = RemoteConfig()
        if let value = table["listen"] {
            if let port = value.int {
                config.listen = try ListenAddress("\(port)", key: "remote.listen")
            } else if let text = value.string {
                config.listen = try ListenAddress(text, key: "remote.listen")
            } else {
                throw RemoteConfigError("'remote.listen' must be a string \"[HOST:]PORT\" or a port number")
            }
        }
        config.ttl = try duration(table, "ttl")
        config.idle = try duration(table, "idle")
        config.hold = try duration(table, "hold")
        if let origins = try strings(table, "allow_origins") {
            config.allowOrigins = try origins.map { origin throws(RemoteConfigError) in try authority(of: origin) }
        }
        let cert = try string(table, "tls_cert")
        let key = try string(table, "tls_key")
        switch (cert, key) {
        case (let cert?, let key?): config.tls = TLSFiles(certificate: cert, key: key)
        case (nil, nil): break
        default: throw RemoteConfigError("'remote.tls_cert' and 'remote.tls_key' go together")
        }
        if let names = try strings(table, "methods") {
            var methods: Set<MessageMethod> = []
            for name in names {
                guard let method = MessageMethod(rawValue: name), grantableMethods.contains(method) else {
                    throw RemoteConfigError(
                        "'remote.methods': \"\(name)\" is not a method a remote may be granted (expected some of: "
                            + grantableMethods.map(\.rawValue).joined(separator: ", ") + ")")
                }
                methods.insert(method)
            }
            config.methods = methods
        }
        if let position = table["qr_position"] {
            guard let name = position.string, let corner = ScreenCorner(rawValue: name) else {
                let given = position.string.map { "\"\($0)\"" } ?? "something that is not a string"
                throw RemoteConfigError("'remote.qr_position' must be one of \(ScreenCorner.names), got \(given)")
            }
            config.qrPlacement.corner = corner
        }
        if let names = try strings(table, "qr_screens") {
            let isControl = { (scalar: Unicode.Scalar) in scalar.value < 0x20 || scalar.value == 0x7f }
            if let bad = names.first(where: { $0.isEmpty || $0.unicodeScalars.contains(where: isControl) }) {
                throw RemoteConfigError("'remote.qr_screens': \"\(bad)\" is not an output name (e.g. \"HDMI-A-1\")")
            }
            config.qrPlacement.screens = Set(names)
        }
        return config
    }

    /// A duration in seconds: a number (integer or not) above 0 and at most a day.
    public static func checkDuration(_ seconds: Double, key: String) throws(RemoteConfigError) -> Double {
        guard seconds.isFinite, seconds > 0, seconds <= longestDuration else {
            throw RemoteConfigError(
                "'\(key)' must be a number of seconds above 0 and at most \(Int(longestDuration)), got \(seconds)")
        }
        return seconds
    }

    private static func duration(_ table: TOMLTable, _ key: String) throws(RemoteConfigError) -> Double? {
        guard let value = table[key] else { return nil }
        guard let seconds = value.double ?? value.int.map(Double.init) else {
            throw RemoteConfigError("'remote.\(key)' must be a number of seconds")
        }
        return try checkDuration(seconds, key: "remote.\(key)")
    }

    private static func string(_ table: TOMLTable, _ key: String) throws(RemoteConfigError) -> String? {
        guard let value = table[key] else { return nil }
        guard let text = value.string, !text.isEmpty else {
            throw RemoteConfigError("'remote.\(key)' must be a non-empty string")
        }
        return text
    }

    private static func strings(_ table: TOMLTable, _ key: String) throws(RemoteConfigError) -> [String]? {
        guard let value = table[key] else { return nil }
        guard let array = value.array, array.allSatisfy({ $0.string != nil }) else {
            throw RemoteConfigError("'remote.\(key)' must be an array of strings")
        }
        return (0..<array.count).map { array[$0].string! }
    }

    /// `kiosk.example.org`, `kiosk.example.org:8443` or `https://kiosk.example.org[:8443]` → the host (and port)
    /// as ``HostPolicy`` compares them. Anything with a path, a user or white space is refused.
    static func authority(of origin: String) throws(RemoteConfigError) -> String {
        var text = Substring(origin.lowercased())
        for scheme in ["http://", "https://"] where text.hasPrefix(scheme) { text = text.dropFirst(scheme.count) }
        if text.hasSuffix("/") { text = text.dropLast() }
        let forbidden = CharacterSet(charactersIn: "/@?#").union(.whitespacesAndNewlines).union(.controlCharacters)
        guard !text.isEmpty, text.unicodeScalars.allSatisfy({ !forbidden.contains($0) }) else {
            throw RemoteConfigError(
                "'remote.allow_origins': \"\(origin)\" is not a host name, "
                    + "host:port or origin (https://host[:port])")
        }
        return String(text)
    }
}

/// Where the remote listens: `8080` (on 127.0.0.1), `192.168.1.20:8080`, `[::1]:8080`.
public struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// - Parameter key: the flag or config key named in the error.
    public init(_ text: String, key: String) throws(RemoteConfigError) {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        }
        guard let port = Int(portText), (0...65535).contains(port), !host.isEmpty,
            !host.contains(where: { $0.isWhitespace || $0 == "/" })
        else {
            throw RemoteConfigError("\(key) wants [HOST:]PORT with a port from 0 to 65535, got \"\(text)\"")
        }
        self.host = host
        self.port = port
    }

    public var description: String { HostPolicy.authority(host, port) }
}

/// A PEM certificate chain and its private key, for HTTPS and WSS.
public struct TLSFiles: Equatable, Sendable {
    public var certificate: String
    public var key: String

    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }
}

/// A `[remote]` section or a remote flag that cannot be used, in words.
public struct RemoteConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// Control characters (a TOML parser's multi-line message, a value typed with a bell in it) are escaped: the
    /// message goes to the log as it is.
    public init(_ message: String) {
        self.message = message.logSafe
    }
    public var description: String { message }
}
