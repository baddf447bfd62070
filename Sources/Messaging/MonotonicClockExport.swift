import SystemCalls

/// The one monotonic clock (``SystemCalls/MonotonicClock``), where every user of the rings and their timestamps finds
/// it: the enqueue stamps are taken from it.
public typealias MonotonicClock = SystemCalls.MonotonicClock
