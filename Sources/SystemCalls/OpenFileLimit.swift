import Glibc

/// The process's limit on open descriptors (`RLIMIT_NOFILE`).
public enum OpenFileLimit {
    /// Raises the soft limit to the hard limit and returns both. The soft limit is often 1024 for compatibility with
    /// `select`, which Multiscreen never uses; the hard limit is what the administrator (or the unit's
    /// `LimitNOFILE`) allows. With the phone remote's connection cap well below it, a flood of connections cannot
    /// take the descriptors the screens and the control socket need.
    @discardableResult
    public static func raiseToHard() throws(SystemCallError) -> (soft: UInt64, hard: UInt64) {
        var limit = rlimit()
        try systemCall("getrlimit") { getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            try systemCall("setrlimit") { setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) }
        }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }
}
