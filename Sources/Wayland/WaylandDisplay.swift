import CWaylandClient
import Glibc

/// Owns the `wl_display` connection: the root of every other Wayland object.
///
/// It is disconnected only by ``disconnect()``, which the application calls last, after EGL is terminated
/// (Mesa's EGL display holds its own proxies on this connection; disconnecting first leaves them dangling).
public final class WaylandDisplay {
    public private(set) var pointer: OpaquePointer?

    /// Connects to `name`, or to `$WAYLAND_DISPLAY` when nil.
    /// - Throws: ``WaylandError/cannotConnect(display:errno:)``.
    public init(name: String? = nil) throws {
        let display = name.flatMap { $0 }.map { wl_display_connect($0) } ?? wl_display_connect(nil)
        guard let display else {
            let shown = name ?? String(cString: getenv("WAYLAND_DISPLAY") ?? strdup("wayland-0"))
            throw WaylandError.cannotConnect(display: shown, errno: errno)
        }
        pointer = display
    }

    deinit { disconnect() }

    public var fileDescriptor: Int32 { wl_display_get_fd(pointer) }

    /// Sends queued requests. Returns false when the socket is full (`EAGAIN`): poll for `POLLOUT` and retry.
    /// - Throws: the connection's error when it broke.
    public func flush() throws -> Bool {
        while true {
            if wl_display_flush(pointer) >= 0 { return true }
            switch errno {
            case EINTR: continue
            case EAGAIN: return false
            default: throw currentError(fallbackErrno: errno)
            }
        }
    }

    /// Dispatches events already read from the socket.
    public func dispatchPending() throws {
        if wl_display_dispatch_pending(pointer) < 0 { throw currentError(fallbackErrno: errno) }
    }

    /// Announces that this thread will read from the socket; false while events are still queued
    /// (dispatch them and try again). See `wl_display_prepare_read` in wayland-client.h.
    public func prepareRead() -> Bool { wl_display_prepare_read(pointer) == 0 }

    public func cancelRead() { wl_display_cancel_read(pointer) }

    /// Reads what the socket has after ``prepareRead()`` succeeded and poll said it is readable.
    public func readEvents() throws {
        if wl_display_read_events(pointer) < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            throw currentError(fallbackErrno: errno)
        }
    }

    /// Blocks until the compositor has processed every request sent so far, dispatching events meanwhile.
    public func roundtrip() throws {
        if wl_display_roundtrip(pointer) < 0 { throw currentError(fallbackErrno: errno) }
    }

    /// The connection's fatal error, distinguishing a protocol error from a lost connection.
    public func currentError(fallbackErrno: Int32) -> WaylandError {
        let code = wl_display_get_error(pointer)
        if code == EPROTO {
            var interface: UnsafePointer<CChar>? = nil
            var id: UInt32 = 0
            let protocolCode = ms_protocol_error(pointer, &interface, &id)
            return .protocolError(
                interface: interface.map { String(cString: $0) } ?? "unknown", objectID: id, code: protocolCode)
        }
        return .connectionLost(errno: code != 0 ? code : fallbackErrno)
    }

    public func disconnect() {
        guard let display = pointer else { return }
        wl_display_disconnect(display)
        pointer = nil
    }
}
