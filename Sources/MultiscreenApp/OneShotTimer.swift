import SystemCalls
import Wayland

/// A ``TimerDescriptor`` armed for one deadline at a time (a save, a message's expiry, a health check), on the
/// display thread's loop for its whole life: it registers itself when made and unregisters when it goes (foot's
/// `fdm_add`/`fdm_del`), so its owner only arms it and says what happens when it fires. Disarmed, it never wakes
/// the loop (an idle Multiscreen makes no wakeups).
final class OneShotTimer {
    private let timer: TimerDescriptor
    private weak var loop: EventLoop?
    /// Called on the display thread when the deadline has come, the expiry already consumed.
    var fired: () -> Void = {}

    init(on loop: EventLoop) throws {
        timer = try TimerDescriptor()
        self.loop = loop
        loop.watch(timer.fd) { [unowned self] in
            acknowledge()
            fired()
        }
    }

    deinit { loop?.unwatch(timer.fd) }

    /// Armed and not yet fired.
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
        // At least 1 ns: 0 would disarm it, and "now" still means "as soon as possible".
        try? timer.set(first: max(Int64(seconds * 1e9), 1))
    }

    /// Fires at `deadline` (`CLOCK_MONOTONIC` ns; at once when it has passed), unless already armed for it; nil: disarms.
    func arm(atMonotonic deadline: UInt64?) {
        guard let deadline else { return disarm() }
        let now = MonotonicClock.nanoseconds()
        arm(for: deadline, after: deadline > now ? Double(deadline - now) / 1e9 : 0)
    }

    /// Cancels a pending expiry (nothing to wait for any more: no wakeup for nothing).
    func disarm() {
        guard isPending else { return }
        try? timer.set(first: 0)
        acknowledge()
    }

    /// Consumes the expiry so poll stops reporting it.
    private func acknowledge() {
        isPending = false
        armedFor = nil
        _ = timer.readExpirations()
    }
}
