import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// Where the control socket lives and the few socket calls both ends share.
public enum ControlSocket {
    /// `sun_path` holds 108 bytes including the terminating NUL.
    public static let maximumPathBytes = 107

    /// `$MULTISCREEN_SOCKET` if set, else `$XDG_RUNTIME_DIR/multiscreen/<display>.sock`, where `<display>` is the
    /// last path component of `display` (what `run --display` names), else of `$WAYLAND_DISPLAY`, else
    /// `wayland-0`: one socket per compositor session, so two instances on two displays (a nested compositor, a
    /// test) do not fight over one path.
    ///
    /// The runtime directory is private to the user (0700 by the XDG spec), which is why it is the default; the
    /// server creates the `multiscreen` directory inside it 0700 as well.
    public static func defaultPath(display: String? = nil, environment: [String: String]) throws(ControlError)
        -> String
    {
        if let explicit = environment["MULTISCREEN_SOCKET"], !explicit.isEmpty { return explicit }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else {
            throw .noRuntimeDirectory
        }
        var display = display ?? environment["WAYLAND_DISPLAY"] ?? ""
        if let slash = display.lastIndex(of: "/") { display = String(display[display.index(after: slash)...]) }
        if display.isEmpty { display = "wayland-0" }
        let directory = runtime.hasSuffix("/") ? String(runtime.dropLast()) : runtime
        return "\(directory)/multiscreen/\(display).sock"
    }

    /// Creates the default socket's directory (`$XDG_RUNTIME_DIR/multiscreen`) 0700 if it is missing, then checks that
    /// what is there is private: a directory, not a symlink, owned by us, with no permission for group or others.
    /// Otherwise the socket's mode 0600 would be all that keeps others out, and someone else's directory is not
    /// ours to use. Not applied to an explicit `--socket` or `$MULTISCREEN_SOCKET`, whose directory is the user's
    /// choice.
    /// - Throws: ``ControlError/directoryNotPrivate(path:reason:)``, or ``ControlError/system(operation:path:errno:)``.
    public static func makePrivateDirectory(of socketPath: String) throws(ControlError) {
        guard let slash = socketPath.lastIndex(of: "/"), slash != socketPath.startIndex else { return }
        let directory = String(socketPath[..<slash])
        do {
            try systemCall("mkdir") { mkdir(directory, 0o700) }
        } catch  where error.errno == EEXIST {
        } catch {
            throw .system(operation: "mkdir", path: directory, errno: error.errno)
        }
        var status = stat()
        try ControlError.call("lstat", directory) { lstat(directory, &status) }
        let reason: String? =
            if (status.st_mode & S_IFMT) != S_IFDIR {
                "is not a directory (or is a symbolic link)"
            } else if status.st_uid != geteuid() {
                "belongs to uid \(status.st_uid), not to us (uid \(geteuid()))"
            } else if status.st_mode & 0o077 != 0 {
                "has mode 0\(String(status.st_mode & 0o777, radix: 8)), not 0700"
            } else {
                nil
            }
        if let reason { throw .directoryNotPrivate(path: directory, reason: reason) }
    }

    /// Fills a `sockaddr_un` for `path` and calls `body` with it as a `sockaddr`.
    static func withAddress<R>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R
    ) throws(ControlError) -> R {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPathBytes else { throw .pathTooLong(path: path) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// A new close-on-exec, non-blocking Unix stream socket.
    static func makeSocket(path: String) throws(ControlError) -> Int32 {
        try ControlError.call("socket for", path) {
            socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        }
    }

    /// Connects a fresh socket to `path` (a Unix socket connects or fails at once; it never waits for the peer).
    /// - Returns: the connected descriptor (non-blocking), or the `errno` of a failed `connect` (ENOENT,
    ///   ECONNREFUSED, EAGAIN for a full backlog, …) for the caller to judge; throws only for an unusable path or
    ///   no socket.
    static func connect(to path: String) throws(ControlError) -> Result<Int32, SystemCallError> {
        let descriptor = try makeSocket(path: path)
        let result = try withAddress(path) { address, length in
            Result { () throws(SystemCallError) in
                try systemCall("connect") { Glibc.connect(descriptor, address, length) }
            }
        }
        if case .failure = result { close(descriptor) }
        return result.map { _ in descriptor }
    }

    /// Sets `O_NONBLOCK` (accepted sockets do not inherit it from the listener).
    static func setNonBlocking(_ descriptor: Int32) {
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
    }
}
