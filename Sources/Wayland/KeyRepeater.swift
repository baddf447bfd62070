import Logging
import SystemCalls

/// Client-side key repeat: Wayland compositors send one press and one release, and leave repetition to the client
/// (`wl_keyboard.repeat_info`, "the client should … start repeating … after delay milliseconds, at rate characters
/// per second").
///
/// Ownership: owns one ``TimerDescriptor`` for its whole life. The display thread's ``EventLoop`` watches
/// ``fileDescriptor`` and calls ``handleTimer()`` when it is readable; an idle repeater is disarmed and never wakes
/// the loop. One repeater serves a ``Seat`` across keyboards coming and going,
/// so the application registers the descriptor once.
public final class KeyRepeater {
    /// The timer, nil when it could not be made (keys then simply do not repeat).
    private let timer: TimerDescriptor?
    /// The timerfd to watch, or -1 when there is none.
    public var fileDescriptor: Int32 { timer?.fd ?? -1 }
    /// Repetitions per second; 0 disables repeat (`wl_keyboard.repeat_info`: "A rate of zero will disable any
    /// repeating").
    public private(set) var rate: Int32
    /// Milliseconds between the press and the first repetition.
    public private(set) var delay: Int32
    /// The xkb keycode being repeated, nil when idle.
    public private(set) var key: UInt32?
    /// Called on the display thread for every due repetition of ``key``.
    var onRepeat: (UInt32) -> Void = { _ in }

    /// Expirations handled per wakeup at most: a loop stalled for seconds must not type a paragraph.
    static let maximumBurst: UInt64 = 8
    private let logger = Logger(label: "multiscreen.wayland")

    /// - Parameters:
    ///   - rate: Initial rate until the compositor's `repeat_info` arrives (keyboards before v4 never send it;
    ///     25/s after 600 ms is what weston, sway and foot assume).
    ///   - delay: Initial delay in milliseconds.
    public init(rate: Int32 = 25, delay: Int32 = 600) {
        self.rate = rate
        self.delay = delay
        do {
            timer = try TimerDescriptor()
        } catch {
            timer = nil
            logger.error("\(error): keys will not repeat")
        }
    }

    /// Applies `wl_keyboard.repeat_info`. A key already repeating keeps its current timing until the next press.
    public func configure(rate: Int32, delay: Int32) {
        self.rate = max(0, rate)
        self.delay = max(0, delay)
        if self.rate == 0 { stop() }
    }

    /// Starts repeating `key` after ``delay``, replacing any key repeating now (a new press takes over).
    public func start(key: UInt32) {
        stop()
        guard rate > 0, timer != nil else { return }
        self.key = key
        // it_value 0 would disarm the timer: a zero delay still means "as soon as possible".
        let first = max(Int64(delay) * 1_000_000, 1)
        arm(first: first, interval: 1_000_000_000 / Int64(rate))
    }

    /// Stops repeating: the key was released, focus left, or the keyboard went away.
    public func stop() {
        guard key != nil else { return }
        key = nil
        arm(first: 0, interval: 0)
    }

    /// Reads the timer's expiration count and emits that many repetitions (at most ``maximumBurst``).
    /// Call when ``fileDescriptor`` is readable; a spurious call does nothing.
    public func handleTimer() {
        let expirations = timer?.readExpirations() ?? 0
        for _ in 0..<min(expirations, Self.maximumBurst) {
            guard let key else { return }  // a handler may have stopped us
            onRepeat(key)
        }
    }

    /// The timer's current setting in nanoseconds (`timerfd_gettime`): time to the next expiration and the
    /// interval, both 0 when disarmed.
    public var timerSetting: (next: Int64, interval: Int64) { timer?.setting ?? (0, 0) }

    private func arm(first: Int64, interval: Int64) {
        do {
            try timer?.set(first: first, interval: interval)
        } catch {
            logger.error("\(error)")
        }
    }
}
