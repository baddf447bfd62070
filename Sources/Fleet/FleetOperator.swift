import Foundation
import Messaging

#if canImport(Glibc)
    import Glibc
#endif

/// The operator's side of the fleet topics (`multiscreen fleet …`, tests, benchmarks): a short-lived MQTT client
/// with a clean session that runs its loop on the calling thread, one blocking step at a time.
public final class FleetOperator {
    public let client: Mosquitto
    public let broker: BrokerAddress
    private var connack: Int32?
    private var disconnected = false
    private var acknowledged: Set<Int32> = []
    private var subscribed: Set<Int32> = []
    private var inbox: [MosquittoMessage] = []

    /// - Parameters:
    ///   - settings: broker, TLS files and credentials file as in `[fleet]` (site and kiosk unused).
    ///   - cleanSession: false with a `clientID` of its own: a collector of QoS 1 records (proof of play) whose
    ///     subscriptions, and what is published for them while it is away, the broker keeps.
    public init(settings: FleetConfig, clientID: String? = nil, cleanSession: Bool = true) throws {
        broker = settings.broker
        let id = clientID ?? "multiscreen-operator-\(UUID().uuidString.prefix(8).lowercased())"
        client = try Mosquitto(clientID: id, cleanSession: cleanSession)
        if let credentials = try settings.credentials() {
            try client.setCredentials(username: credentials.username, password: credentials.password)
        }
        if settings.broker.tls {
            try client.setTLS(caFile: settings.caFile, certFile: settings.certFile, keyFile: settings.keyFile)
        }
        client.onConnect = { [unowned self] code in connack = code }
        client.onDisconnect = { [unowned self] _ in disconnected = true }
        client.onPublish = { [unowned self] mid in acknowledged.insert(mid) }
        client.onSubscribe = { [unowned self] mid in subscribed.insert(mid) }
        client.onMessage = { [unowned self] message in inbox.append(message) }
    }

    public static func now() -> Double { MonotonicClock.seconds() }

    /// Connects and waits for the broker's answer. - Throws: ``FleetOperatorError`` with the broker's reason.
    public func connect(keepAlive: Int = 30, timeout: Double = 5) throws {
        try client.connect(host: broker.host, port: broker.port, keepAlive: keepAlive)
        try step(until: Self.now() + timeout) { connack != nil }
        guard let code = connack else { throw FleetOperatorError("no answer from \(broker) within \(timeout) s") }
        if code != 0 {
            throw FleetOperatorError(
                "the broker \(broker) refused the connection: \(Mosquitto.connackDescription(code)) (CONNACK \(code))")
        }
    }

    /// Subscribes and waits for the SUBACK (so nothing published after this returns is missed).
    public func subscribe(_ patterns: [String], qos: Int32 = 1, timeout: Double = 5) throws {
        let ids = try patterns.map { try client.subscribe($0, qos: qos) }
        try step(until: Self.now() + timeout) { ids.allSatisfy(subscribed.contains) }
        guard ids.allSatisfy(subscribed.contains) else { throw FleetOperatorError("no SUBACK within \(timeout) s") }
    }

    /// Publishes; with QoS 1 waits for the broker's PUBACK.
    public func publish(topic: String, payload: [UInt8], qos: Int32 = 1, retain: Bool = false, timeout: Double = 5)
        throws
    {
        let mid = try client.publish(topic: topic, payload: payload, qos: qos, retain: retain)
        guard qos > 0 else {
            try step(until: Self.now()) { !client.wantsWrite }
            return
        }
        try step(until: Self.now() + timeout) { acknowledged.contains(mid) }
        guard acknowledged.remove(mid) != nil else {
            throw FleetOperatorError("no PUBACK from \(broker) within \(timeout) s")
        }
    }

    /// Publishes without waiting; call ``step(until:_:)`` to move it (for benchmarks that pipeline).
    @discardableResult
    public func publishLater(topic: String, payload: [UInt8], qos: Int32 = 1) throws -> Int32 {
        try client.publish(topic: topic, payload: payload, qos: qos, retain: false)
    }

    /// Whether messages are waiting to be taken (a `done` condition for ``step(until:_:)``).
    public var hasMessages: Bool { !inbox.isEmpty }

    /// Messages received so far, oldest first; taking them empties the list.
    public func takeMessages() -> [MosquittoMessage] {
        defer { inbox.removeAll() }
        return inbox
    }

    /// Runs the client loop until `done` holds or `deadline` (monotonic seconds) passes, whichever is first.
    /// - Throws: ``FleetOperatorError`` when the connection is lost.
    public func step(until deadline: Double, _ done: () -> Bool = { false }) throws {
        while !done() {
            if disconnected { throw FleetOperatorError("the broker \(broker) closed the connection") }
            let left = deadline - Self.now()
            let socket = client.socket
            guard socket >= 0 else { throw FleetOperatorError("not connected to \(broker)") }
            var descriptor = pollfd(
                fd: socket, events: Int16(POLLIN) | (client.wantsWrite ? Int16(POLLOUT) : 0), revents: 0)
            let ready = poll(&descriptor, 1, Int32(max(0, min(left, 1)) * 1000))
            if ready < 0 && errno != EINTR {
                throw FleetOperatorError("poll: \(String(cString: strerror(errno)))")
            }
            if ready > 0 {
                if descriptor.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { try client.loopRead() }
                if descriptor.revents & Int16(POLLOUT) != 0 { try client.loopWrite() }
            }
            try client.loopMisc()
            if left <= 0 { return }
        }
    }

    public func disconnect() {
        client.disconnect()
        try? step(until: Self.now() + 1) { !client.wantsWrite }
    }

    // MARK: Requests

    /// A request line with an id, as the kiosks expect on their `cmd` topics.
    public static func request(_ message: Message, id: String) -> [UInt8] {
        guard
            case .object(var line) = try? JSONValue.parse(Array(MessageCodec.encodeRequest(message).utf8))
        else { return [] }
        line["id"] = .string(id)
        return Array(JSONValue.object(line).serialized.utf8)
    }
}

public struct FleetOperatorError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
