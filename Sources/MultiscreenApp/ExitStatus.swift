import Wayland

/// The documented exit statuses of `multiscreen run` (README, "Exit status").
public enum ExitStatus: Int32, Sendable {
    /// Orderly shutdown after SIGINT or SIGTERM.
    case success = 0
    /// Could not start: no compositor, a required global missing, EGL or shaders unusable.
    case startupFailure = 1
    /// The compositor went away (socket closed or reset).
    case compositorLost = 3
    /// The compositor reported a protocol error.
    case protocolError = 4
}

extension ExitStatus {
    /// The status for the error that ended the event loop: a protocol error is ours (or the compositor's) to fix,
    /// anything else on the connection means the compositor is gone.
    public init(loopError error: Error) {
        if case .protocolError? = error as? WaylandError {
            self = .protocolError
        } else {
            self = .compositorLost
        }
    }
}
