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
