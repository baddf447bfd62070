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
    /// What the pending expiry was armed for (``arm(for:after:)``).
    private var armedFor: AnyHashable?

    /// Fires once after `seconds`, for `deadline`, unless it is already armed for that same deadline: callers that
    /// recompute their next deadline on every pass pay no syscall while it stays put.
    func arm(for deadline: some Hashable, after seconds: Double) {
        let key = AnyHashable(deadline)
        guard !isPending || armedFor != key else { return }
        arm(after: seconds)
        armedFor = key
    }

    /// Fires once after `seconds`, unless it is already pending: the first of a burst of requests sets the
    /// deadline, so a steady stream of them cannot postpone it forever.
    func armUnlessPending(after seconds: Double) {
        if !isPending { arm(after: seconds) }
    }

    /// Fires once after `seconds`, replacing any earlier deadline.
    func arm(after seconds: Double) {
        isPending = true
        armedFor = nil
        let whole = Int(seconds)
        var spec = itimerspec()
        spec.it_value.tv_sec = whole
        spec.it_value.tv_nsec = max(Int((seconds - Double(whole)) * 1e9), 1)
        timerfd_settime(fd, 0, &spec, nil)
    }

    /// Cancels a pending expiry (nothing to wait for any more: no wakeup for nothing).
    func disarm() {
        guard isPending else { return }
        var spec = itimerspec()
        timerfd_settime(fd, 0, &spec, nil)
        acknowledge()
    }

    /// Consumes the expiry so poll stops reporting it.
    func acknowledge() {
        isPending = false
        armedFor = nil
        var expirations: UInt64 = 0
        _ = read(fd, &expirations, 8)
    }
}
