import Glibc

/// How a thread waits for a ring to change: retry at once a few times, then yield the core, then sleep for
/// exponentially longer intervals up to a cap.
///
/// Why bounded: this runs on 2 cores shared with a compositor and a render loop. A thread spinning on a ring whose
/// other side is descheduled on the same core would burn its whole time slice while the side it waits for cannot
/// run; yielding and then sleeping hands the core over.
public struct Backoff: Sendable {
    /// Immediate retries before the first `sched_yield`.
    public var spins: Int
    /// `sched_yield` calls before the first sleep.
    public var yields: Int
    /// The longest single sleep, in nanoseconds.
    public var maximumSleepNanoseconds: Int
    private var attempt = 0

    public init(spins: Int = 64, yields: Int = 8, maximumSleepNanoseconds: Int = 1_000_000) {
        self.spins = spins
        self.yields = yields
        self.maximumSleepNanoseconds = maximumSleepNanoseconds
    }

    /// Call after each failed attempt.
    public mutating func wait() {
        attempt += 1
        if attempt <= spins { return }
        if attempt <= spins + yields {
            sched_yield()
            return
        }
        let exponent = min(attempt - spins - yields, 20)
        let nanoseconds = min(1_000 << exponent, maximumSleepNanoseconds)
        var interval = timespec(tv_sec: 0, tv_nsec: nanoseconds)
        nanosleep(&interval, nil)
    }

    /// Call after a successful attempt, so the next wait starts spinning again.
    public mutating func reset() { attempt = 0 }
}
