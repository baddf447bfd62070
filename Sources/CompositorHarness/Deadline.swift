import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// Seconds on the monotonic clock: deadlines must not jump with the wall clock.
func monotonicSeconds() -> Double { MonotonicClock.seconds() }

/// The interval at which every wait in the harness re-checks its condition.
///
/// Small enough that a test never waits noticeably longer than the event takes, large enough to cost nothing.
let pollInterval: Double = 0.01

/// Sleeps one poll interval. The only kind of sleep in the harness: always inside a loop that checks a condition.
func sleepOnePollInterval() {
    usleep(useconds_t(pollInterval * 1_000_000))
}

/// Waits until `condition` holds, checking it every 10 ms, and throws when `timeout` seconds pass first.
///
/// There are no fixed sleeps in the harness: every wait is a condition with a deadline, so a fast machine is fast and
/// a loaded CI machine is merely slower instead of flaky.
/// - Parameters:
///   - timeout: Seconds before giving up.
///   - what: Names the awaited condition in the error ("outputs of sway to appear").
///   - logTail: Called on timeout to attach the relevant log to the error.
///   - condition: Checked until it returns true; an error it throws ends the wait and propagates.
/// - Throws: ``HarnessError`` on timeout, or what `condition` throws.
public func waitUntil(
    timeout: Double, _ what: @autoclosure () -> String, logTail: () -> String? = { nil },
    _ condition: () throws -> Bool
) throws {
    let start = monotonicSeconds()
    while true {
        if try condition() { return }
        if monotonicSeconds() - start > timeout {
            throw HarnessError(
                "timed out after \(formatSeconds(timeout)) s waiting for \(what())", logTail: logTail())
        }
        sleepOnePollInterval()
    }
}

func formatSeconds(_ seconds: Double) -> String {
    let tenths = (seconds * 10).rounded() / 10
    return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
}
