import CLinux
import Glibc

/// One non-blocking `CLOCK_MONOTONIC` timerfd: the only way Multiscreen's event loop waits for time to pass.
///
/// Ownership: the descriptor is created in `init` and closed in `deinit`; whoever owns this registers ``fd`` with
/// the event loop. Disarmed, it never wakes anyone (an idle Multiscreen makes no wakeups).
public final class TimerDescriptor {
    public let fd: Int32

    public init() throws(SystemCallError) {
        fd = try systemCall("timerfd_create") { timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK)) }
    }

    deinit { close(fd) }

    /// Fires after `first` nanoseconds, then every `interval` (0: once). `first` 0 disarms it, whatever `interval`.
    public func set(first: Int64, interval: Int64 = 0) throws(SystemCallError) {
        var setting = itimerspec(it_interval: timespec(nanoseconds: interval), it_value: timespec(nanoseconds: first))
        try systemCall("timerfd_settime") { timerfd_settime(fd, 0, &setting, nil) }
    }

    /// Expirations since the last read (0 when none: a spurious wakeup), consumed so `poll` stops reporting them.
    public func readExpirations() -> UInt64 {
        var expirations: UInt64 = 0
        let count = withUnsafeMutableBytes(of: &expirations) { read(fd, $0.baseAddress, $0.count) }
        return count == MemoryLayout<UInt64>.size ? expirations : 0
    }

    /// Nanoseconds to the next expiration and the interval (`timerfd_gettime`), both 0 when disarmed.
    public var setting: (next: Int64, interval: Int64) {
        var current = itimerspec()
        guard timerfd_gettime(fd, &current) == 0 else { return (0, 0) }
        return (current.it_value.nanoseconds, current.it_interval.nanoseconds)
    }
}

extension timespec {
    fileprivate init(nanoseconds: Int64) {
        self.init(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    }

    fileprivate var nanoseconds: Int64 { Int64(tv_sec) * 1_000_000_000 + Int64(tv_nsec) }
}
