import ConfigFile
import Foundation
import Messaging
import TOMLKit
import TOMLPrecheck

/// The `[web]` section of `config.toml`: what pages may ask of Multiscreen through the bridge, per origin, and how
/// much memory a web process may use. Read from the same file as the role rules (which leave the section to this
/// type), once at start.
///
/// ```toml
/// [web]
/// memory_limit = 512            # MiB per web process; over it, WebKit ends the process (a crash, reloaded)
///
/// [web.permissions]             # per origin: the methods its pages may call, instead of the default
/// "https://signage.example.org" = ["send", "card.*", "status", "content.set"]
/// "file://" = ["send", "status"]  # pages of local app directories
/// ```
public struct WebConfig: Equatable, Sendable {
    public var permissions = PagePermissions()
    /// WebKit's memory limit for each web process, MiB; nil leaves WebKit's own (a share of the machine's memory).
    public var memoryLimitMiB: Int?

    public static let keys = ["memory_limit", "permissions"]
    /// The smallest and largest `memory_limit`: below 64 MiB a web process cannot even start a page; WebKit takes
    /// the value as a 32-bit count of MiB.
    public static let memoryLimitRange = 64...1_048_576

    public init(permissions: PagePermissions = PagePermissions(), memoryLimitMiB: Int? = nil) {
        self.permissions = permissions
        self.memoryLimitMiB = memoryLimitMiB
    }

    /// The `[web]` section of the config at `path`; the defaults when the file or the section is absent.
    public static func load(path: String) throws(WebConfigError) -> WebConfig {
        let text: String?
        do throws(ConfigFile.Problem) {
            text = try ConfigFile.text(at: path)
        } catch {
            throw WebConfigError("\(path): \(error)")
        }
        guard let text else { return WebConfig() }
        do {
            return try parse(text)
        } catch {
            throw WebConfigError("\(path): \(error.message)")
        }
    }

    /// The `[web]` section of a config's text; the defaults without one.
    public static func parse(_ text: String) throws(WebConfigError) -> WebConfig {
        let root: TOMLTable
        do throws(ConfigFile.Problem) {
            root = try ConfigFile.table(text)
        } catch {
            throw WebConfigError("\(error)")
        }
        guard let section = root["web"] else { return WebConfig() }
        guard let table = section.table else { throw WebConfigError("'web' must be a table ([web])") }
        if let unknown = table.keys.sorted().first(where: { !keys.contains($0) }) {
            throw WebConfigError("unknown key 'web.\(unknown)' (expected one of: \(keys.joined(separator: ", ")))")
        }
        var config = WebConfig()
        if let value = table["memory_limit"] {
            guard let mib = value.int, memoryLimitRange.contains(mib) else {
                throw WebConfigError(
                    "'web.memory_limit' must be a whole number of MiB from \(memoryLimitRange.lowerBound) to "
                        + "\(memoryLimitRange.upperBound), got \(value)")
            }
            config.memoryLimitMiB = mib
        }
        if let value = table["permissions"] {
            guard let origins = value.table else {
                throw WebConfigError(
                    "'web.permissions' must be a table of origins, e.g. \"https://example.org\" = [\"send\"]")
            }
            for key in origins.keys.sorted() {
                let name = "'web.permissions.\"\(key)\"'"
                let origin = try PagePermissions.origin(configured: key, key: name)
                guard let array = origins[key]?.array, array.allSatisfy({ $0.string != nil }) else {
                    throw WebConfigError("\(name) must be an array of method names, e.g. [\"send\", \"card.*\"]")
                }
                let methods = try (0..<array.count).map { index throws(WebConfigError) in
                    try PagePermissions.methods(named: array[index].string!, key: name)
                }
                config.permissions.byOrigin[origin] = methods.reduce(into: []) { $0.formUnion($1) }
            }
        }
        return config
    }
}

/// Which methods a page may call through the bridge: per origin of the page (the URL the view shows when it posts),
/// else the default.
///
/// Origins are compared as `scheme://host[:port]`, lowercased, without a default port; every `file://` page has the
/// origin `file://`. A page's frames share its bridge: an embedded frame from another origin posts with the page's
/// permissions (WPE 2.38 does not say which frame posted), so grant an origin only what its embeds may do too.
public struct PagePermissions: Equatable, Sendable {
    /// Methods a page may call unless the config says otherwise: show text, handle cards, read the status.
    public static let defaultMethods: Set<MessageMethod> = [
        .send, .openCard, .closeCard, .reopenCard, .discardCard, .status,
    ]
    /// Methods a page may be granted: every method of the wire but the transports' own.
    public static let grantableMethods = MessageMethod.allCases.filter {
        $0 != .subscribeEvents && !$0.isInternal
    }

    public var defaultMethods: Set<MessageMethod>
    public var byOrigin: [String: Set<MessageMethod>]

    public init(
        defaultMethods: Set<MessageMethod> = PagePermissions.defaultMethods,
        byOrigin: [String: Set<MessageMethod>] = [:]
    ) {
        self.defaultMethods = defaultMethods
        self.byOrigin = byOrigin
    }

    /// The origin of the page at `url` and the methods it may call.
    public func methods(forPageAt url: String?) -> (origin: String, methods: Set<MessageMethod>) {
        let origin = url.flatMap(Self.origin(of:)) ?? "(no origin)"
        return (origin, byOrigin[origin] ?? defaultMethods)
    }

    /// The gate a page's requests pass, for the origin it shows now.
    public func gate(forPageAt url: String?) -> MethodGate {
        let (origin, methods) = methods(forPageAt: url)
        return MethodGate(caller: "a page from \(origin)", permitted: methods)
    }

    /// `scheme://host[:port]` of an absolute URL (`file://` for every file URL); nil for anything else.
    public static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            return nil
        }
        if scheme == "file" { return "file://" }
        guard let host = components.host?.lowercased(), !host.isEmpty else { return nil }
        let defaultPort = ["http": 80, "https": 443][scheme]
        let port = components.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        return "\(scheme)://\(host)\(port)"
    }

    /// A configured origin, checked and in the form ``origin(of:)`` gives: no path, query, user or fragment.
    static func origin(configured text: String, key: String) throws(WebConfigError) -> String {
        let lowered = (text.hasSuffix("/") && text != "file://" ? String(text.dropLast()) : text).lowercased()
        if lowered == "file://" { return lowered }
        guard let components = URLComponents(string: lowered), ["http", "https"].contains(components.scheme ?? ""),
            components.path.isEmpty, components.query == nil, components.fragment == nil, components.user == nil,
            let origin = origin(of: lowered)
        else {
            throw WebConfigError(
                "\(key): \"\(text)\" is not an origin (http(s)://host[:port], or file:// for local pages)")
        }
        return origin
    }

    /// A method name, or `prefix.*` for every grantable method under it (`card.*`).
    static func methods(named name: String, key: String) throws(WebConfigError) -> Set<MessageMethod> {
        let matched: [MessageMethod]
        if name.hasSuffix(".*") {
            let prefix = String(name.dropLast())
            matched = grantableMethods.filter { $0.rawValue.hasPrefix(prefix) }
        } else {
            matched = grantableMethods.filter { $0.rawValue == name }
        }
        guard !matched.isEmpty else {
            throw WebConfigError(
                "\(key): \"\(name)\" is not a method a page may be granted (expected some of: "
                    + grantableMethods.map(\.rawValue).joined(separator: ", ") + ", or a group such as card.*)")
        }
        return Set(matched)
    }
}

/// Why the `[web]` section cannot be used, in words for the log.
public struct WebConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// Control characters (a TOML parser's multi-line message, a value typed with a bell in it) are escaped: the
    /// message goes to the log as it is.
    public init(_ message: String) {
        self.message = message.logSafe
    }

    public var description: String { "[web]: \(message)" }
}
