import CLinux
import Glibc
import SystemCalls

/// A timerfd armed for one deadline at a time: the display thread's only way to wait for time to pass.
/// Disarmed, it never wakes the loop (an idle Multiscreen makes no wakeups).
final class OneShotTimer {
    let fd: Int32

    init() throws {
        fd = try systemCall("timerfd_create") { timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK)) }
    }

    deinit { close(fd) }

    /// Armed and not yet acknowledged.
    private(set) var isPending = false

    /// Fires once after `seconds`, unless it is already pending: the first of a burst of requests sets the
    /// deadline, so a steady stream of them cannot postpone it forever.
    func armUnlessPending(after seconds: Double) {
        if !isPending { arm(after: seconds) }
    }

    /// Fires once after `seconds`, replacing any earlier deadline.
    func arm(after seconds: Double) {
        isPending = true
        let whole = Int(seconds)
        var spec = itimerspec()
        spec.it_value.tv_sec = whole
        spec.it_value.tv_nsec = max(Int((seconds - Double(whole)) * 1e9), 1)
        timerfd_settime(fd, 0, &spec, nil)
    }

    /// Consumes the expiry so poll stops reporting it.
    func acknowledge() {
        isPending = false
        var expirations: UInt64 = 0
        _ = read(fd, &expirations, 8)
    }
}
