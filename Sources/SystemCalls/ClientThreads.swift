import CLinux
import Glibc

/// The threads that serve clients (the control socket, the fleet link, the phone remote) run below the display
/// thread: a flood of clients must not take the CPU that frames need. They get the CPU the frames leave over, which
/// for answering a request is plenty (its real work, the reply, is made on the display thread).
///
/// `bench bad-input` measured it with its storms on a CPU of their own (docs/reliability.md, R11): the storms
/// lengthened the screens' slowest frames by ×1.03–1.44 with these threads at +5, and by ×0.80–1.08 at +19, within
/// the runs' noise; local `status` replies stayed under 11 ms at p99 during the storms either way.
public enum ClientThreads {
    /// Added to a serving thread's nice value: the most there is.
    public static let niceness: Int32 = 19

    /// Adds `niceness` to the calling thread's nice value (up to the lowest priority, 19), so that a Multiscreen
    /// started under `nice` keeps its client threads below its display thread. On Linux the nice value is per
    /// thread, and `who` 0 of `PRIO_PROCESS` is the calling thread. Raising one's own nice value needs no privilege;
    /// failing to is harmless, so it is not checked.
    public static func lowerCallingThread(by niceness: Int32 = niceness) {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        // -1 is a valid nice value, so an error shows only in errno.
        errno = 0
        let current = getpriority(which, 0)
        guard errno == 0 else { return }
        _ = setpriority(which, 0, min(current + niceness, 19))
    }

    /// Names the calling thread for `top -H`, `ps -L`, `perf` and debuggers, which otherwise show every thread as
    /// `multiscreen`. The kernel keeps at most 15 bytes; a longer name is cut at a character boundary.
    public static func nameCallingThread(_ name: String) {
        var bytes = 0
        let prefix = name.prefix { character in
            bytes += character.utf8.count
            return bytes <= 15
        }
        _ = ms_name_calling_thread(String(prefix))
    }
}
