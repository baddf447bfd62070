import CLinux
import Glibc

/// Nanoseconds on `CLOCK_MONOTONIC`, the clock every message's enqueue timestamp is taken from.
///
/// Why not `ContinuousClock`: its `Instant` is opaque, and a timestamp has to fit in a plain-value ring slot and be
/// comparable with the display thread's presentation times, which Wayland reports on `CLOCK_MONOTONIC`. On Linux
/// with the TSC clocksource this is a vDSO call, not a syscall.
public enum MonotonicClock {
    @inlinable
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    /// Seconds on `CLOCK_MONOTONIC`, for deadlines and timeouts that must not jump with the wall clock.
    public static func seconds() -> Double { Double(nanoseconds()) / 1e9 }

    /// Nanoseconds on another POSIX clock: presentation timestamps are in the clock `wp_presentation.clock_id`
    /// names (weston 10: `CLOCK_MONOTONIC_RAW`), so commit times compared with them must be read from that clock;
    /// process CPU time is `CLOCK_PROCESS_CPUTIME_ID`.
    public static func nanoseconds(clock: Int32) -> UInt64 {
        var now = timespec()
        clock_gettime(clockid_t(clock), &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
