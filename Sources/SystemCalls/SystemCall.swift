#if canImport(Glibc)
    import Glibc
#endif

/// A system call that failed: which call, and `errno` as it was right after it (not after whatever ran since:
/// a log line, a `close`, Swift's own runtime can all change `errno`).
public struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call, as the caller names it (e.g. "bind /run/user/0/multiscreen/wayland-1.sock").
    public var call: String
    public var errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call): \(String(cString: strerror(errno)))" }
}

/// Runs `body`, a system call that returns -1 and sets `errno` when it fails: again while it fails with `EINTR`
/// (a signal interrupted it, nothing went wrong), and otherwise captures `errno` at once.
///
/// Not for `close(2)`: on Linux the descriptor is gone even when `close` says `EINTR`, and retrying could close a
/// descriptor another thread just opened.
/// - Returns: the call's result (a descriptor, a byte count, 0).
/// - Throws: ``SystemCallError`` naming `call` with the `errno` of the failure.
@discardableResult
public func systemCall<Result: BinaryInteger>(
    _ call: @autoclosure () -> String, _ body: () -> Result
) throws(SystemCallError) -> Result {
    while true {
        let result = body()
        if result != -1 { return result }
        let error = errno
        if error != EINTR { throw SystemCallError(call: call(), errno: error) }
    }
}

/// For the POSIX thread calls that return an error number instead of setting `errno` (`pthread_create`,
/// `pthread_sigmask`): 0 is success.
public func threadCall(_ call: @autoclosure () -> String, _ result: Int32) throws(SystemCallError) {
    if result != 0 { throw SystemCallError(call: call(), errno: result) }
}
