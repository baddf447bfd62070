import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// The control socket's listening descriptor, and how it keeps accepting when descriptors run out. Owned by the server
/// thread's ``ControlLoop``, which closes it with ``close()``.
///
/// When `accept` fails with `EMFILE`/`ENFILE`, the waiting connection stays in the backlog and the listener is left
/// out of `poll` for a while (50 ms doubling to 1 s while the failures go on): polling it would report that
/// connection at once, again and again, a busy loop that also flooded the log. Before pausing, a descriptor held in
/// reserve (`/dev/null`) is given up and the connection accepted in its place, so the operator's command still gets
/// through while something else in the process (a flood of phone connections) holds every other descriptor.
final class ControlListener {
    /// What one ``acceptAll(admit:)`` did, for the counters and the log.
    struct Accepted {
        /// Connections accepted on the reserve descriptor.
        var onReserve = 0
        /// Set when descriptors ran out and the listener paused: why, and for how long (ms).
        var paused: (error: SystemCallError, milliseconds: UInt64)?
    }

    let descriptor: Int32
    private var reserve: Int32 = -1
    private var pausedUntil: UInt64?
    private var pause: UInt64 = 0
    private static let pauseRange: ClosedRange<UInt64> = 50_000_000...1_000_000_000

    init(descriptor: Int32) {
        self.descriptor = descriptor
        reserve = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    /// What `poll` should watch this turn: the listener, or -1 (skipped by poll) while paused. Also takes the reserve
    /// descriptor again once descriptors are free.
    func pollDescriptor() -> Int32 {
        if reserve < 0 { reserve = open("/dev/null", O_RDONLY | O_CLOEXEC) }
        if let until = pausedUntil, MonotonicClock.nanoseconds() >= until { pausedUntil = nil }
        return pausedUntil == nil ? descriptor : -1
    }

    /// Until the listener is polled again (-1: it is not paused), for poll's timeout.
    func pauseMilliseconds() -> Int32 {
        guard let until = pausedUntil else { return -1 }
        let now = MonotonicClock.nanoseconds()
        return until <= now ? 0 : Int32((until - now + 999_999) / 1_000_000)
    }

    /// Accepts every waiting connection (non-blocking, close-on-exec) and hands each to `admit` at once, so one that
    /// is refused is closed before the next is accepted.
    func acceptAll(admit: (Int32) -> Void) -> Accepted {
        var accepted = Accepted()
        var onReserve = false
        while true {
            let connection: Int32
            do {
                connection = try systemCall("accept") { accept(descriptor, nil, nil) }
            } catch {
                switch error.errno {
                case EAGAIN, EWOULDBLOCK: return accepted
                case ECONNABORTED, EPROTO: continue
                case EMFILE where reserve >= 0:
                    // Best effort: another thread of the process (the phone remote's) may take the freed descriptor
                    // first; then the next accept fails again and the listener pauses.
                    Glibc.close(reserve)
                    reserve = -1
                    onReserve = true
                    continue
                default:
                    pause = min(max(pause * 2, Self.pauseRange.lowerBound), Self.pauseRange.upperBound)
                    pausedUntil = MonotonicClock.nanoseconds() &+ pause
                    accepted.paused = (error, pause / 1_000_000)
                    return accepted
                }
            }
            pause = 0
            if onReserve { accepted.onReserve += 1 }
            onReserve = false
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            ControlSocket.setNonBlocking(connection)
            admit(connection)
        }
    }

    func close() {
        Glibc.close(descriptor)
        if reserve >= 0 { Glibc.close(reserve) }
        reserve = -1
    }
}
