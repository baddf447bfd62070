import CMosquitto
import COnDemandLibraries
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// A libmosquitto error: the call that failed and the library's own text for the code.
public struct MosquittoError: Error, Equatable, CustomStringConvertible {
    public var operation: String
    public var code: Int32
    /// What went wrong when the library itself is not there to say (it could not be loaded).
    public var reason: String?

    public init(_ operation: String, code: Int32, reason: String? = nil) {
        self.operation = operation
        self.code = code
        self.reason = reason
    }

    public var description: String {
        if let reason { return "\(operation): \(reason)" }
        // MOSQ_ERR_ERRNO: the library says "see errno"; errno is still the one the failing call set.
        if code == Int32(MOSQ_ERR_ERRNO.rawValue) {
            return "\(operation): \(String(cString: strerror(errno)))"
        }
        return "\(operation): \(String(cString: mosquitto_strerror(code)))"
    }
}

/// A message as libmosquitto hands it over, copied out of the library's buffer.
public struct MosquittoMessage: Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var retained: Bool
    /// `CLOCK_MONOTONIC` nanoseconds when libmosquitto handed it over (for latency measurements).
    public var receivedAt: UInt64
}

/// The Swift owner of one `struct mosquitto` (an MQTT client handle). Not thread-safe: every call, and every
/// callback, happens on the thread that runs its loop (``FleetLink``'s thread, or the operator CLI's main
/// thread), which is how libmosquitto is meant to be driven without `mosquitto_loop_start`: poll
/// ``socket`` (and for writing when ``wantsWrite``), then ``loopRead()``, ``loopWrite()``, ``loopMisc()``.
public final class Mosquitto {
    private let handle: OpaquePointer

    /// CONNACK: 0 accepted; 1-5 the MQTT 3.1.1 refusals (see ``connackDescription(_:)``).
    public var onConnect: ((Int32) -> Void)?
    /// 0 after our own disconnect, anything else: the connection was lost.
    public var onDisconnect: ((Int32) -> Void)?
    public var onMessage: ((MosquittoMessage) -> Void)?
    /// A QoS ≥ 1 publish of ours was acknowledged by the broker (its message id).
    public var onPublish: ((Int32) -> Void)?
    /// A SUBACK arrived (its message id).
    public var onSubscribe: ((Int32) -> Void)?

    /// Nil once libmosquitto is loaded (it is not linked, see COnDemandLibraries) and initialised; why not otherwise.
    private static let loadFailure: String? = {
        if let failure = multiscreen_open_library(on_demand_mosquitto) { return String(cString: failure) }
        mosquitto_lib_init()
        return nil
    }()

    /// - Parameters:
    ///   - clientID: the MQTT client id (the broker keeps a persistent session under it).
    ///   - cleanSession: false keeps subscriptions and queued QoS 1 messages across disconnects.
    public init(clientID: String, cleanSession: Bool) throws(MosquittoError) {
        if let failure = Self.loadFailure {
            throw MosquittoError("load libmosquitto", code: Int32(MOSQ_ERR_NOT_SUPPORTED.rawValue), reason: failure)
        }
        guard let handle = mosquitto_new(clientID, cleanSession, nil) else {
            throw MosquittoError("mosquitto_new", code: Int32(MOSQ_ERR_ERRNO.rawValue))
        }
        self.handle = handle
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        _ = mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311))
        // Commands, replies and acknowledgements are small packets that must not wait for Nagle's algorithm to
        // meet the peer's delayed ACK (40 ms or more per exchange on Linux).
        _ = mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        mosquitto_connect_callback_set(handle) { _, context, code in
            Mosquitto.owner(context).onConnect?(code)
        }
        mosquitto_disconnect_callback_set(handle) { _, context, code in
            Mosquitto.owner(context).onDisconnect?(code)
        }
        mosquitto_publish_callback_set(handle) { _, context, mid in
            Mosquitto.owner(context).onPublish?(mid)
        }
        mosquitto_subscribe_callback_set(handle) { _, context, mid, _, _ in
            Mosquitto.owner(context).onSubscribe?(mid)
        }
        mosquitto_message_callback_set(handle) { _, context, message in
            guard let message = message?.pointee else { return }
            let topic = String(cString: message.topic)
            var payload: [UInt8] = []
            if let bytes = message.payload, message.payloadlen > 0 {
                payload = Array(UnsafeRawBufferPointer(start: bytes, count: Int(message.payloadlen)))
            }
            let receivedAt = MonotonicClock.nanoseconds()
            Mosquitto.owner(context).onMessage?(
                MosquittoMessage(topic: topic, payload: payload, retained: message.retain, receivedAt: receivedAt))
        }
    }

    deinit { mosquitto_destroy(handle) }

    private static func owner(_ context: UnsafeMutableRawPointer?) -> Mosquitto {
        Unmanaged<Mosquitto>.fromOpaque(context!).takeUnretainedValue()
    }

    private func check(_ operation: String, _ code: Int32) throws(MosquittoError) {
        if code != Int32(MOSQ_ERR_SUCCESS.rawValue) { throw MosquittoError(operation, code: code) }
    }

    // MARK: Before connecting

    /// The last will: what the broker publishes for us when our connection dies without a DISCONNECT.
    public func setWill(topic: String, payload: String, qos: Int32, retain: Bool) throws(MosquittoError) {
        let bytes = Array(payload.utf8)
        try check("mosquitto_will_set", mosquitto_will_set(handle, topic, Int32(bytes.count), bytes, qos, retain))
    }

    public func setCredentials(username: String, password: String?) throws(MosquittoError) {
        try check("mosquitto_username_pw_set", mosquitto_username_pw_set(handle, username, password))
    }

    /// TLS with the CA file (nil: the system's default paths are not used by libmosquitto; a CA is required) and an
    /// optional client certificate and key.
    public func setTLS(caFile: String?, certFile: String?, keyFile: String?) throws(MosquittoError) {
        let caPath: String? = caFile == nil ? "/etc/ssl/certs" : nil
        try check("mosquitto_tls_set", mosquitto_tls_set(handle, caFile, caPath, certFile, keyFile, nil))
    }

    // MARK: Connection and loop

    /// Starts connecting without waiting for the broker (the CONNACK arrives through ``onConnect``).
    public func connect(host: String, port: Int, keepAlive: Int) throws(MosquittoError) {
        try check("connect to \(host):\(port)", mosquitto_connect_async(handle, host, Int32(port), Int32(keepAlive)))
    }

    /// Sends DISCONNECT (the broker then does not publish the will).
    public func disconnect() { _ = mosquitto_disconnect(handle) }

    /// The connection's socket, or -1 when not connected.
    public var socket: Int32 { mosquitto_socket(handle) }
    public var wantsWrite: Bool { mosquitto_want_write(handle) }

    public func loopRead() throws(MosquittoError) { try check("read", mosquitto_loop_read(handle, 1)) }
    public func loopWrite() throws(MosquittoError) { try check("write", mosquitto_loop_write(handle, 1)) }
    /// Keep-alive pings and their timeout.
    public func loopMisc() throws(MosquittoError) { try check("keep-alive", mosquitto_loop_misc(handle)) }

    // MARK: Messages

    /// - Returns: the message id (for ``onPublish``).
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: Int32, retain: Bool) throws(MosquittoError) -> Int32 {
        var mid: Int32 = 0
        try check(
            "publish to \(topic)",
            mosquitto_publish(handle, &mid, topic, Int32(payload.count), payload, qos, retain))
        return mid
    }

    @discardableResult
    public func subscribe(_ pattern: String, qos: Int32) throws(MosquittoError) -> Int32 {
        var mid: Int32 = 0
        try check("subscribe to \(pattern)", mosquitto_subscribe(handle, &mid, pattern, qos))
        return mid
    }

    @discardableResult
    public func unsubscribe(_ pattern: String) throws(MosquittoError) -> Int32 {
        var mid: Int32 = 0
        try check("unsubscribe from \(pattern)", mosquitto_unsubscribe(handle, &mid, pattern))
        return mid
    }

    /// What a CONNACK code means, in the broker's words (MQTT 3.1.1: 1 protocol, 2 identifier, 3 unavailable,
    /// 4 bad username or password, 5 not authorised).
    public static func connackDescription(_ code: Int32) -> String {
        String(cString: mosquitto_connack_string(code))
    }
}
