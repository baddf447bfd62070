import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// Why the control socket could not be served or reached. The descriptions are what a user reads, so each names
/// the path and, where one exists, the next step.
public enum ControlError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Neither `$MULTISCREEN_SOCKET` nor `$XDG_RUNTIME_DIR` is set, so there is no private place for the socket.
    case noRuntimeDirectory
    /// A Unix socket path is limited to 107 bytes by `sockaddr_un`.
    case pathTooLong(path: String)
    /// Something answers at `path`: another instance owns it, and taking it over would strand that one's clients.
    case alreadyListening(path: String)
    /// `path` exists and is not a socket; it is someone's file, not ours to remove.
    case notASocket(path: String)
    /// The default socket's directory exists and is not private to us (``ControlSocket/makePrivateDirectory(of:)``).
    case directoryNotPrivate(path: String, reason: String)
    /// A system call failed; `errno` as it was.
    case system(operation: String, path: String, errno: Int32)
    /// Client: nothing accepts connections at `path`.
    case notListening(path: String)
    /// Client: the request was sent and no complete reply came within the timeout (it may still be applied).
    case timedOut(path: String, milliseconds: Int)
    /// Client: the request could not be sent within the timeout (the server's backlog or buffer stayed full): it
    /// was not applied.
    case timedOutSending(path: String, milliseconds: Int)
    /// Client: the server closed the connection before a complete reply line.
    case closedBeforeReply(path: String)
    /// Client: the reply line is not a reply of the protocol.
    case malformedReply(excerpt: String, reason: String)

    public var description: String {
        switch self {
        case .noRuntimeDirectory:
            "neither MULTISCREEN_SOCKET nor XDG_RUNTIME_DIR is set: no private directory for the control socket"
        case .pathTooLong(let path):
            "socket path is \(path.utf8.count) bytes, the limit is \(ControlSocket.maximumPathBytes): \(path)"
        case .alreadyListening(let path):
            "another Multiscreen is listening at \(path)"
        case .notASocket(let path):
            "\(path) exists and is not a socket; not removing it"
        case .directoryNotPrivate(let path, let reason):
            "\(path) \(reason): the control socket's directory must be private (chmod 700 it, or remove it and let Multiscreen create it)"
        case .system(let operation, let path, let errno):
            "\(operation) \(path): \(String(cString: strerror(errno)))"
        case .notListening(let path):
            "no Multiscreen listening at \(path) (is it running?)"
        case .timedOut(let path, let milliseconds):
            "no reply from \(path) within \(milliseconds) ms"
        case .timedOutSending(let path, let milliseconds):
            "could not send to \(path) within \(milliseconds) ms (it is alive but behind): nothing was applied"
        case .closedBeforeReply(let path):
            "\(path) closed the connection before replying"
        case .malformedReply(let excerpt, let reason):
            "malformed reply (\(reason)): \(excerpt)"
        }
    }
}

extension ControlError {
    /// A system call on `path` (``systemCall(_:_:)``: `EINTR` retried, `errno` captured at the call), its failure
    /// reported as ``system(operation:path:errno:)``.
    @discardableResult
    static func call(_ operation: String, _ path: String, _ body: () -> Int32) throws(ControlError) -> Int32 {
        do {
            return try systemCall(operation, body)
        } catch {
            throw .system(operation: operation, path: path, errno: error.errno)
        }
    }
}
