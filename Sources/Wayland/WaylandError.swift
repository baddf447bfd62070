import CWaylandClient
import Glibc

/// Why the connection to the compositor failed. Each case maps to a documented exit status.
public enum WaylandError: Error, CustomStringConvertible, Equatable {
    /// `wl_display_connect` failed: no compositor at `$WAYLAND_DISPLAY`.
    case cannotConnect(display: String, errno: Int32)
    /// A global Multiscreen cannot work without is not offered.
    case missingGlobals([String])
    /// The compositor sent `wl_display.error`: we broke the protocol (a bug in Multiscreen or the compositor).
    case protocolError(interface: String, objectID: UInt32, code: UInt32)
    /// The connection broke (compositor exited or crashed): `EPIPE`, `ECONNRESET`, hang-up.
    case connectionLost(errno: Int32)

    public var description: String {
        switch self {
        case .cannotConnect(let display, let e):
            return "cannot connect to Wayland display '\(display)': \(String(cString: strerror(e)))"
        case .missingGlobals(let names):
            return "the compositor does not offer required globals: \(names.joined(separator: ", "))"
        case .protocolError(let interface, let id, let code):
            return "protocol error from the compositor: interface \(interface), object \(id), code \(code)"
        case .connectionLost(let e):
            return "lost the connection to the compositor: \(String(cString: strerror(e)))"
        }
    }
}
