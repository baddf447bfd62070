import NIOCore
import NIOHTTP1
import Synchronization

/// What one connection to the remote may hold and for how long, as nginx's and HAProxy's limits do: a cap on
/// connections (in all and per client address), on WebSockets (the same), and timeouts for a request's head, its
/// body and an idle kept-alive connection. Over a cap a connection is closed as soon as it is accepted (nothing
/// read, nothing written); a timeout closes the connection. Each is counted in `status` (`refused.*`,
/// `closed.*`) and logged the 1st, 10th, 100th… time. Durations are seconds.
public struct ConnectionLimits: Sendable, Equatable {
    /// Open connections (HTTP and WebSocket together). The kiosk has one controller: 256 is far above what
    /// phones need and far below the common 1024 file descriptors (nginx's `worker_connections` default is 512).
    public var maximumConnections = 256
    /// Open connections from one client address: a browser opens at most 6 per host, a few tabs a few more.
    public var maximumConnectionsPerAddress = 16
    /// Open WebSockets (each needs a session holding control, so there is one in normal use).
    public var maximumWebSockets = 32
    public var maximumWebSocketsPerAddress = 8
    /// From the connection's start (its TLS handshake included) to the end of its first request's head
    /// (nginx's `client_header_timeout`, HAProxy's `timeout http-request`: a slowloris holds no socket longer).
    public var headTimeout: Double = 10
    /// From a request's head to the end of its body: the remote's bodies are small forms.
    public var bodyTimeout: Double = 10
    /// A kept-alive connection with no request under way is closed after this long; the next request's head must
    /// come within it (nginx's `keepalive_timeout`, 75 s; HAProxy's `timeout http-keep-alive`).
    public var idleTimeout: Double = 30
    /// The largest WebSocket frame read whole: a larger one is cut by NIO's decoder (close 1009 and the
    /// connection dropped). Frames up to this are read, so a message over ``RemoteHub/Options/maximumMessageBytes``
    /// sent in one frame, as browsers send them, is answered with a close 1009 rather than a reset.
    public var maximumFrameBytes = 1 << 20

    public init() {}
}

/// Live connections and WebSockets, in all and by client address. Thread-safe.
final class ConnectionCounter: Sendable {
    /// The places of one kind taken, in all and by client address.
    private struct Tally {
        var total = 0
        var byAddress: [String: Int] = [:]
    }
    private let tallies = Mutex<[Kind: Tally]>([:])

    enum Kind {
        case connection, webSocket

        /// As the refusals' counters and log lines name it.
        var name: String { self == .connection ? "connection" : "WebSocket" }

        /// Its limits in all and per address.
        func limits(_ limits: ConnectionLimits) -> (total: Int, perAddress: Int) {
            switch self {
            case .connection: (limits.maximumConnections, limits.maximumConnectionsPerAddress)
            case .webSocket: (limits.maximumWebSockets, limits.maximumWebSocketsPerAddress)
            }
        }
    }

    /// Why a connection or WebSocket is refused: the counter's key and what the log says.
    struct Refusal: Equatable {
        let key: String
        let what: String
    }

    /// Takes a place for a new connection (or WebSocket) from `address`, or says why there is none.
    func admit(_ kind: Kind, from address: String, limits: ConnectionLimits) -> Refusal? {
        let (total, perAddress) = kind.limits(limits)
        let counter = "refused.\(kind == .connection ? "connections" : "webSockets")"
        return tallies.withLock { tallies in
            var tally = tallies[kind, default: Tally()]
            if tally.total >= total {
                return Refusal(key: counter, what: "remote \(kind.name) refused: \(total) \(kind.name)s open")
            }
            if tally.byAddress[address, default: 0] >= perAddress {
                return Refusal(
                    key: counter + "PerAddress",
                    what: "remote \(kind.name) refused: \(perAddress) \(kind.name)s open from one address")
            }
            tally.total += 1
            tally.byAddress[address, default: 0] += 1
            tallies[kind] = tally
            return nil
        }
    }

    /// Gives back a place taken by ``admit(_:from:limits:)``.
    func release(_ kind: Kind, from address: String) {
        tallies.withLock { tallies in
            var tally = tallies[kind, default: Tally()]
            tally.total -= 1
            tally.byAddress[address, default: 1] -= 1
            if tally.byAddress[address] == 0 { tally.byAddress[address] = nil }
            tallies[kind] = tally
        }
    }

    /// Open connections and WebSockets now, for `status`.
    var open: (connections: Int, webSockets: Int, addresses: Int) {
        tallies.withLock { tallies in
            (
                tallies[.connection]?.total ?? 0, tallies[.webSocket]?.total ?? 0,
                tallies[.connection]?.byAddress.count ?? 0
            )
        }
    }

    /// A connection's client address as the limits key it (``clientKey(_:)``).
    static func address(of channel: any Channel) -> String {
        clientKey(channel.remoteAddress, local: channel.localAddress) ?? "unknown"
    }

    /// The client a socket address stands for, as per-address limits and lockouts key it: an IPv4 address (also
    /// one mapped into IPv6) as it is, without the port; a remote IPv6 address by its /64 prefix
    /// (`2001:db8:1:2::/64`), since one host is commonly given a whole /64 and could otherwise take a fresh address
    /// for every try. But a peer on the kiosk's own link (a link-local address, or the /64 of `local`, the address
    /// it reached) is keyed by its whole address: every phone on the kiosk's Wi-Fi shares that /64, and one of them
    /// must not lock the others out. nil for no address or a Unix socket.
    static func clientKey(_ address: SocketAddress?, local: SocketAddress? = nil) -> String? {
        guard let address else { return nil }
        guard case .v6(let v6) = address else { return address.ipAddress }
        let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        // ::ffff:a.b.c.d is an IPv4 client.
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            return address.ipAddress
        }
        let linkLocal = bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80
        var onOurLink = false
        if case .v6(let ours)? = local {
            let localBytes = withUnsafeBytes(of: ours.address.sin6_addr) { Array($0) }
            onOurLink = localBytes[0..<8] == bytes[0..<8]
        }
        if linkLocal || onOurLink { return address.ipAddress }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }
}

/// The timeouts of ``ConnectionLimits`` for one HTTP connection, between NIO's HTTP/1 decoder and the upgrade
/// handler (it sees request heads and ends, and response ends): the head of the first request within
/// ``ConnectionLimits/headTimeout`` of the connection's start, each body within ``ConnectionLimits/bodyTimeout``
/// of its head, and the next request within ``ConnectionLimits/idleTimeout`` of the last response's end. While the
/// server is answering, no timer runs. Removed when the connection becomes a WebSocket (which lives no longer than
/// its session). The timer is a task scheduled on the connection's event loop.
final class ConnectionTimeouts: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Its name in the pipeline (the WebSocket upgrade removes it by name).
    static let name = "multiscreen.remote.timeouts"

    private let limits: ConnectionLimits
    private let hub: RemoteHub
    private var requestsStarted = 0
    private var requestsEnded = 0
    private var responsesEnded = 0
    private var timer: Scheduled<Void>?
    /// What the armed timer is for (nil: none armed).
    private var armed: Phase?

    enum Phase: Equatable {
        case head, body, idle
    }

    init(limits: ConnectionLimits, hub: RemoteHub) {
        self.limits = limits
        self.hub = hub
    }

    func handlerAdded(context: ChannelHandlerContext) { update(context) }

    func handlerRemoved(context: ChannelHandlerContext) { disarm() }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requestsStarted += 1
            update(context)
        case .body: break
        case .end:
            requestsEnded += 1
            update(context)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            responsesEnded += 1
            update(context)
        }
        context.write(data, promise: promise)
    }

    /// Which timer should run now: the body's while a request is being read, none while one is being answered,
    /// else the first head's (before any response) or the keep-alive's.
    private var phase: Phase? {
        if requestsStarted > requestsEnded { return .body }
        if requestsEnded > responsesEnded { return nil }
        return responsesEnded == 0 ? .head : .idle
    }

    private func update(_ context: ChannelHandlerContext) {
        let phase = phase
        // A phase is timed from when it began (each body phase follows a head, after another phase).
        if phase == armed { return }
        disarm()
        guard let phase else { return }
        let seconds =
            switch phase {
            case .head: limits.headTimeout
            case .body: limits.bodyTimeout
            case .idle: limits.idleTimeout
            }
        armed = phase
        let channel = context.channel
        let hub = hub
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) {
            bound.value.expired(phase, channel: channel, hub: hub)
        }
    }

    private func expired(_ phase: Phase, channel: any Channel, hub: RemoteHub) {
        guard armed == phase else { return }
        armed = nil
        timer = nil
        switch phase {
        case .head:
            hub.refuse(
                "closed.headTimeout",
                "remote connection closed: no complete request head within \(Self.format(limits.headTimeout)) s")
        case .body:
            hub.refuse(
                "closed.bodyTimeout",
                "remote connection closed: a request body took over \(Self.format(limits.bodyTimeout)) s")
        case .idle:
            // Routine for a browser's kept-alive connection: counted, not logged.
            hub.count("closed.idle")
        }
        channel.close(promise: nil)
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
        armed = nil
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e9 ? "\(Int(seconds))" : "\(seconds)"
    }
}
