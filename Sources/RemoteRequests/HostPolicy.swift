/// Which `Host` and `Origin` a request may carry: the listen address and the names configured for it. A page on
/// another site (cross-site WebSocket hijacking) or a DNS-rebinding name (its `Host` is the attacker's name) fails.
public struct HostPolicy: Sendable, Equatable {
    /// Lower-case `host:port` authorities.
    public var allowedAuthorities: Set<String>

    public init(allowedAuthorities: Set<String>) {
        self.allowedAuthorities = Set(allowedAuthorities.map { $0.lowercased() })
    }

    /// The listen address itself, plus `localhost` and `127.0.0.1` / `[::1]` when it is a loopback or wildcard
    /// address, plus `extraHosts` (names or addresses people reach the kiosk by, with or without a port).
    public init(host: String, port: Int, extraHosts: [String] = []) {
        var hosts: Set<String> = [Self.authority(host, port)]
        if ["127.0.0.1", "::1", "localhost", "0.0.0.0", "::"].contains(host) {
            hosts.formUnion(["localhost:\(port)", "127.0.0.1:\(port)", "[::1]:\(port)"])
        }
        for extra in extraHosts {
            hosts.insert(
                extra.contains(":") && !extra.hasPrefix("[") && extra.filter({ $0 == ":" }).count == 1
                    ? extra : Self.authority(extra, port))
        }
        self.init(allowedAuthorities: hosts)
    }

    /// `host:port`, an IPv6 address in brackets.
    public static func authority(_ host: String, _ port: Int) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Why a request is refused, or nil when its `Host` is allowed and its `Origin` (when sent) is the same.
    public func refusal(host: String?, origin: String?) -> String? {
        guard let host, allowedAuthorities.contains(host.lowercased()) else {
            return "Host \(host ?? "(none)") is not served here"
        }
        guard let origin else { return nil }
        let lowered = origin.lowercased()
        // Browsers send http(s); non-browser WebSocket clients sometimes send ws(s). The authority decides.
        for scheme in ["http://", "https://", "ws://", "wss://"] where lowered.hasPrefix(scheme) {
            let authority = String(lowered.dropFirst(scheme.count))
            if allowedAuthorities.contains(authority) { return nil }
        }
        return "Origin \(origin) is not allowed"
    }
}
