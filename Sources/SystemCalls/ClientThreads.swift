import Glibc

/// The threads that serve clients (the control socket, the fleet link, the phone remote) run below the display
/// thread: a flood of clients must not take the CPU that frames need. `bench bad-input` measured it: with the control
/// socket's thread as nice as the display thread, storms of bad clients lengthened the screens' slowest frames more.
public enum ClientThreads {
    /// Added to a serving thread's nice value.
    public static let niceness: Int32 = 5

    /// Adds `niceness` to the calling thread's nice value. On Linux the nice value is per thread, and `who` 0 of
    /// `PRIO_PROCESS` is the calling thread. Raising one's own nice value needs no privilege; failing to is harmless,
    /// so it is not checked.
    public static func lowerCallingThread(by niceness: Int32 = niceness) {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
    }
}
