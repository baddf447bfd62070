/// One `wp_presentation_feedback.presented` event as the compositor sent it: the timestamp split into
/// `tv_sec_hi`/`tv_sec_lo`/`tv_nsec` in the clock `wp_presentation.clock_id` names, the refresh period, the
/// vblank counter split into `seq_hi`/`seq_lo`, and the flags.
public struct PresentationTiming: Equatable, Sendable {
    public var secondsHigh: UInt32
    public var secondsLow: UInt32
    public var nanoseconds: UInt32
    /// Nanoseconds until the next refresh cycle may start; 0 when the output has no constant refresh (the protocol
    /// calls it "unknown").
    public var refreshNanoseconds: UInt32
    public var sequenceHigh: UInt32
    public var sequenceLow: UInt32
    public var flags: PresentationFlags

    public init(
        secondsHigh: UInt32, secondsLow: UInt32, nanoseconds: UInt32, refreshNanoseconds: UInt32 = 0,
        sequenceHigh: UInt32 = 0, sequenceLow: UInt32 = 0, flags: PresentationFlags = []
    ) {
        self.secondsHigh = secondsHigh
        self.secondsLow = secondsLow
        self.nanoseconds = nanoseconds
        self.refreshNanoseconds = refreshNanoseconds
        self.sequenceHigh = sequenceHigh
        self.sequenceLow = sequenceLow
        self.flags = flags
    }

    /// `tv_sec` as the protocol defines it: `tv_sec_hi << 32 | tv_sec_lo`.
    public var seconds: UInt64 { UInt64(secondsHigh) << 32 | UInt64(secondsLow) }

    /// The timestamp in nanoseconds of the presentation clock; saturates at `UInt64.max` (after year 2554).
    public var timestampNanoseconds: UInt64 {
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (sum, carry) = whole.addingReportingOverflow(UInt64(nanoseconds))
        return carry ? .max : sum
    }

    /// The vblank counter: `seq_hi << 32 | seq_lo`. Zero on outputs without one (then it means nothing).
    public var sequence: UInt64 { UInt64(sequenceHigh) << 32 | UInt64(sequenceLow) }
}

/// `wp_presentation_feedback.kind`: how the frame reached the screen.
public struct PresentationFlags: OptionSet, Equatable, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Presented in sync with the display's vertical retrace (no tearing).
    public static let vsync = PresentationFlags(rawValue: 0x1)
    /// The timestamp comes from the display hardware's clock, not a software estimate.
    public static let hardwareClock = PresentationFlags(rawValue: 0x2)
    /// The hardware signalled that the update completed (not a timer guess).
    public static let hardwareCompletion = PresentationFlags(rawValue: 0x4)
    /// The client's buffer was scanned out directly, without a copy.
    public static let zeroCopy = PresentationFlags(rawValue: 0x8)

    /// Stable names, in bit order, as reports and events spell them.
    public static let names: [(PresentationFlags, String)] = [
        (.vsync, "vsync"), (.hardwareClock, "hw_clock"), (.hardwareCompletion, "hw_completion"),
        (.zeroCopy, "zero_copy"),
    ]

    public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
}

/// Converts presentation timestamps from the compositor's `clock_id` to `CLOCK_MONOTONIC`, the clock every
/// message's enqueue stamp is in, so message → presented is a difference of two times on one clock.
///
/// `CLOCK_MONOTONIC` is the identity. For any other clock the offset between it and `CLOCK_MONOTONIC` is sampled
/// at each conversion (monotonic, other, monotonic; the other clock is taken to be read at the midpoint), because
/// offsets move: `CLOCK_MONOTONIC_RAW` drifts against NTP-slewed `CLOCK_MONOTONIC`, `CLOCK_REALTIME` jumps when
/// the time is set, `CLOCK_BOOTTIME` grows across a suspend. A sample costs three vDSO reads.
public struct PresentationClock: Sendable {
    public static let monotonic: Int32 = 1

    /// The clock the compositor's timestamps are in (`wp_presentation.clock_id`).
    public let clockID: Int32
    /// Reads a POSIX clock in nanoseconds (`clock_gettime`); injected so the arithmetic is testable.
    private let read: @Sendable (Int32) -> UInt64

    public init(clockID: Int32, read: @escaping @Sendable (Int32) -> UInt64) {
        self.clockID = clockID
        self.read = read
    }

    /// `timestamp` (nanoseconds of ``clockID``) on `CLOCK_MONOTONIC`; clamped at 0.
    public func monotonic(fromPresentationClock timestamp: UInt64) -> UInt64 {
        guard clockID != Self.monotonic else { return timestamp }
        let before = read(Self.monotonic)
        let other = read(clockID)
        let after = read(Self.monotonic)
        let midpoint = before &+ (after &- before) / 2
        // timestamp − other + midpoint, in signed arithmetic: the timestamp may lie before `other` (it usually does).
        let shifted = Int64(bitPattern: timestamp) &- Int64(bitPattern: other) &+ Int64(bitPattern: midpoint)
        return shifted < 0 ? 0 : UInt64(shifted)
    }

    /// The POSIX name of a clock id, as reports show it.
    public static func name(of clockID: Int32) -> String {
        switch clockID {
        case 0: "CLOCK_REALTIME"
        case 1: "CLOCK_MONOTONIC"
        case 4: "CLOCK_MONOTONIC_RAW"
        case 5: "CLOCK_REALTIME_COARSE"
        case 6: "CLOCK_MONOTONIC_COARSE"
        case 7: "CLOCK_BOOTTIME"
        case 11: "CLOCK_TAI"
        default: "clock \(clockID)"
        }
    }
}

/// Counts missed vblanks from gaps in the presentation `seq` of one surface.
///
/// A gap counts only where the client had the frame ready in time: the frame was committed before the previous
/// presented frame's time plus one refresh period, so the next vblank could have shown it. A gap after the
/// client simply had nothing to draw (an idle screen) is not a miss. Outputs without a counter send `seq` 0, and a
/// counter that goes backwards (another output, a mode set) starts counting afresh.
public struct MissedVblankCounter: Equatable, Sendable {
    public private(set) var missed = 0
    private var last: (sequence: UInt64, presentedAt: UInt64)?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool {
        a.missed == b.missed && a.last?.sequence == b.last?.sequence && a.last?.presentedAt == b.last?.presentedAt
    }

    /// A frame was presented at `presentedAt`; `committedAt` on the same clock. - Returns: vblanks it missed.
    @discardableResult
    public mutating func presented(
        sequence: UInt64, presentedAt: UInt64, committedAt: UInt64, refreshNanoseconds: UInt64
    ) -> Int {
        defer { last = sequence == 0 ? nil : (sequence, presentedAt) }
        guard let last, sequence > last.sequence else { return 0 }
        guard committedAt < last.presentedAt &+ refreshNanoseconds else { return 0 }
        let gap = Int(clamping: sequence - last.sequence - 1)
        missed += gap
        return gap
    }
}
