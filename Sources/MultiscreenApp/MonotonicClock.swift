import Glibc

/// Reads a POSIX clock in nanoseconds. Presentation timestamps are in the clock named by
/// `wp_presentation.clock_id` (weston 10: CLOCK_MONOTONIC_RAW), so commit times must be read from the same one.
enum Clock {
    static func nanoseconds(_ clock: Int32 = CLOCK_MONOTONIC) -> UInt64 {
        var ts = timespec()
        clock_gettime(clockid_t(clock), &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
