import Histogram
import Messaging

/// One message as one output showed it: read from a `frame.shown` event (``ShownMessage/parse(_:)``).
/// Times are `CLOCK_MONOTONIC` nanoseconds, the clock of the message's enqueue stamp.
public struct ShownMessage: Equatable, Sendable {
    /// `presented` (a `wp_presentation` time), `frameDone` (the frame callback, where `presented` never came) or
    /// `lost` (never shown: no `shownAt`).
    public var source: String
    public var id: UInt64
    public var enqueuedAt: UInt64
    public var drainedAt: UInt64
    public var committedAt: UInt64
    public var shownAt: UInt64?
    public var frame: UInt64
    public var sequence: UInt64
    public var refreshNanoseconds: UInt64
    public var flags: [String]
    public var clock: String
    /// Photodiode mode: the colour this message's frame gave the patch, `white` or `black`; nil without it.
    public var patch: String?

    public init(
        source: String, id: UInt64, enqueuedAt: UInt64, drainedAt: UInt64, committedAt: UInt64, shownAt: UInt64?,
        frame: UInt64 = 0, sequence: UInt64 = 0, refreshNanoseconds: UInt64 = 0, flags: [String] = [],
        clock: String = "CLOCK_MONOTONIC"
    ) {
        self.source = source
        self.id = id
        self.enqueuedAt = enqueuedAt
        self.drainedAt = drainedAt
        self.committedAt = committedAt
        self.shownAt = shownAt
        self.frame = frame
        self.sequence = sequence
        self.refreshNanoseconds = refreshNanoseconds
        self.flags = flags
        self.clock = clock
    }

    /// Message → shown, ns (nil when lost).
    public var total: UInt64? { shownAt.map { Self.span(enqueuedAt, $0) } }
    public var enqueueToDrain: UInt64 { Self.span(enqueuedAt, drainedAt) }
    public var drainToCommit: UInt64 { Self.span(drainedAt, committedAt) }
    public var commitToShown: UInt64? { shownAt.map { Self.span(committedAt, $0) } }

    static func span(_ from: UInt64, _ to: UInt64) -> UInt64 { to > from ? to - from : 0 }

    /// The messages of one `frame.shown` event and the screen it names; nil for any other event.
    public static func parse(_ event: Event) -> (screen: String, messages: [ShownMessage])? {
        guard event.name == "frame.shown", case .string(let screen)? = event.params["screen"],
            case .string(let source)? = event.params["source"], case .array(let messages)? = event.params["messages"]
        else { return nil }
        func integer(_ value: JSONValue?) -> UInt64? {
            if case .integer(let n)? = value, n >= 0 { return UInt64(n) }
            return nil
        }
        let flags: [String]
        if case .array(let values)? = event.params["flags"] {
            flags = values.compactMap { if case .string(let s) = $0 { return s } else { return nil } }
        } else {
            flags = []
        }
        var clock = "CLOCK_MONOTONIC"
        if case .string(let name)? = event.params["clock"] { clock = name }
        var patch: String?
        if case .string(let colour)? = event.params["patch"] { patch = colour }
        let parsed = messages.compactMap { value -> ShownMessage? in
            let m = value.objectValue
            guard let id = integer(m["id"]), let enqueued = integer(m["enqueuedAt"]),
                let drained = integer(m["drainedAt"])
            else { return nil }
            var shown = ShownMessage(
                source: source, id: id, enqueuedAt: enqueued, drainedAt: drained,
                committedAt: integer(event.params["committedAt"]) ?? 0, shownAt: integer(event.params["shownAt"]),
                frame: integer(event.params["frame"]) ?? 0, sequence: integer(event.params["seq"]) ?? 0,
                refreshNanoseconds: integer(event.params["refreshNs"]) ?? 0, flags: flags, clock: clock)
            shown.patch = patch
            return shown
        }
        return (screen, parsed)
    }
}

/// Percentiles of a set of durations, from an HdrHistogram with three significant digits: every figure is within
/// 0.1 % of the true order statistic (HdrHistogram reports the highest value equivalent to it).
public struct Distribution: Equatable, Sendable {
    public var count: Int
    public var p50: UInt64
    public var p90: UInt64
    public var p99: UInt64
    public var p999: UInt64
    public var max: UInt64
    public var mean: Double

    /// Durations above this (an hour) are recorded as this.
    public static let highestTrackable: UInt64 = 3_600_000_000_000

    /// nil for no values.
    public init?(_ values: [UInt64]) {
        guard !values.isEmpty else { return nil }
        var histogram = Histogram<UInt64>(
            highestTrackableValue: Self.highestTrackable, numberOfSignificantValueDigits: .three)
        for value in values { _ = histogram.record(Swift.min(value, Self.highestTrackable)) }
        count = values.count
        p50 = histogram.valueAtPercentile(50)
        p90 = histogram.valueAtPercentile(90)
        p99 = histogram.valueAtPercentile(99)
        p999 = histogram.valueAtPercentile(99.9)
        max = histogram.maxRecorded  // exact; `max` rounds up to its bucket
        mean = histogram.mean
    }

    /// In milliseconds, three decimals: `{"count", "p50", "p90", "p99", "p99_9", "max", "mean"}`.
    public var json: JSONValue {
        .object([
            "count": .integer(count), "p50": Self.ms(p50), "p90": Self.ms(p90), "p99": Self.ms(p99),
            "p99_9": Self.ms(p999), "max": Self.ms(max), "mean": .number((mean / 1000).rounded() / 1000),
        ])
    }

    static func ms(_ ns: UInt64) -> JSONValue { .number(Double(ns / 1000) / 1000) }
}

/// Frame counters of one output over the run (differences of `status` before and after).
public struct FrameCounts: Equatable, Sendable {
    public var committed: Int
    public var presented: Int
    public var discarded: Int
    public var missedVblanks: Int

    public init(committed: Int, presented: Int, discarded: Int, missedVblanks: Int) {
        self.committed = committed
        self.presented = presented
        self.discarded = discarded
        self.missedVblanks = missedVblanks
    }
}

/// Everything measured on one output.
public struct OutputReport: Sendable {
    public var name: String
    /// The output's refresh period from its mode (`wl_output`), ns; 0 when unknown.
    public var modeRefreshNanoseconds: UInt64
    /// The messages sent during the run that this output was expected to show.
    public var expected: [UInt64]
    /// What the output reported, one per message id (the first report wins).
    public var shown: [UInt64: ShownMessage]
    public var frames: FrameCounts?

    public init(
        name: String, modeRefreshNanoseconds: UInt64, expected: [UInt64], shown: [UInt64: ShownMessage],
        frames: FrameCounts? = nil
    ) {
        self.name = name
        self.modeRefreshNanoseconds = modeRefreshNanoseconds
        self.expected = expected
        self.shown = shown
        self.frames = frames
    }

    /// Reports in the order the messages were sent.
    public var ordered: [ShownMessage] { expected.compactMap { shown[$0] } }
    public var unaccounted: [UInt64] { expected.filter { shown[$0] == nil } }
    public func count(_ source: String) -> Int { shown.values.filter { $0.source == source }.count }
    /// Whether the compositor sent `presented` for this output at least once.
    public var presentedAvailable: Bool { count("presented") > 0 }

    /// The refresh period `presented` reported, else the mode's.
    public var refreshNanoseconds: UInt64 {
        shown.values.first { $0.source == "presented" && $0.refreshNanoseconds > 0 }?.refreshNanoseconds
            ?? modeRefreshNanoseconds
    }

    /// What the figures are measured to: `presented`, `frameDone`, `mixed`, or `none`.
    public var source: String {
        let sources = Set(shown.values.map(\.source)).subtracting(["lost"])
        return sources.count > 1 ? "mixed" : sources.first ?? "none"
    }

    public var flags: [String] { Array(Set(shown.values.flatMap(\.flags))).sorted() }

    public var clock: String { shown.values.first { $0.source == "presented" }?.clock ?? "CLOCK_MONOTONIC" }

    private var shownSamples: [ShownMessage] { ordered.filter { $0.shownAt != nil } }

    public var messageToShown: Distribution? { Distribution(shownSamples.compactMap(\.total)) }
    public var enqueueToDrain: Distribution? { Distribution(shownSamples.map(\.enqueueToDrain)) }
    public var drainToCommit: Distribution? { Distribution(shownSamples.map(\.drainToCommit)) }
    public var commitToShown: Distribution? { Distribution(shownSamples.compactMap(\.commitToShown)) }

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "name": .string(name), "refreshNs": .integer(Int(refreshNanoseconds)),
            "presentedAvailable": .bool(presentedAvailable), "source": .string(source), "clock": .string(clock),
            "flags": .array(flags.map { .string($0) }),
            "messages": .object([
                "expected": .integer(expected.count), "presented": .integer(count("presented")),
                "frameDone": .integer(count("frameDone")), "lost": .integer(count("lost")),
                "unaccounted": .array(unaccounted.map { .integer(Int($0)) }),
            ]),
            "messageToShownMs": messageToShown?.json ?? .null,
            "enqueueToDrainMs": enqueueToDrain?.json ?? .null,
            "drainToCommitMs": drainToCommit?.json ?? .null,
            "commitToShownMs": commitToShown?.json ?? .null,
            "samples": .array(
                ordered.map { m in
                    .object([
                        "id": .integer(Int(m.id)), "source": .string(m.source),
                        "messageToShownNs": m.total.map { .integer(Int($0)) } ?? .null,
                        "enqueueToDrainNs": .integer(Int(m.enqueueToDrain)),
                        "drainToCommitNs": .integer(Int(m.drainToCommit)),
                        "commitToShownNs": m.commitToShown.map { .integer(Int($0)) } ?? .null,
                        "seq": .integer(Int(clamping: m.sequence)), "frame": .integer(Int(clamping: m.frame)),
                        "patch": .optional(m.patch),
                        "shownAtNs": m.shownAt.map { .integer(Int(clamping: $0)) } ?? .null,
                    ])
                }),
        ]
        if let frames {
            object["frames"] = .object([
                "committed": .integer(frames.committed), "presented": .integer(frames.presented),
                "discarded": .integer(frames.discarded),
            ])
            object["missedVblanks"] = .integer(frames.missedVblanks)
        } else {
            object["frames"] = .null
            object["missedVblanks"] = .null
        }
        return .object(object)
    }
}

/// A whole `multiscreen latency` run: the document written to `latency.json` (keys in docs/latency.md).
public struct LatencyRun: Sendable {
    public static let schema = "multiscreen-latency/1"

    /// `weston`, `sway` (embedded) or `session`.
    public var compositor: String
    /// How frames are paced (`frame`: render on the frame callback; the only mode so far).
    public var pacing = "frame"
    /// Message ids in the order they were sent.
    public var sent: [UInt64]
    public var outputs: [OutputReport]
    public var notes: [String] = []
    /// Messages were sent without waiting for the previous one to be shown (`--back-to-back`).
    public var backToBack = false
    /// Photodiode mode was on: each sample's `patch` is the colour its frame gave the flash patch.
    public var flash = false
    /// `weston-presentation-shm` in the same session (`--reference`), `-p` then `-f`; empty when not asked for.
    public var reference: [ReferenceRun] = []

    public init(compositor: String, sent: [UInt64], outputs: [OutputReport]) {
        self.compositor = compositor
        self.sent = sent
        self.outputs = outputs
    }

    /// Every message is presented, shown by the fallback, or counted lost on every output that should show it.
    public var everyMessageAccountedFor: Bool { outputs.allSatisfy { $0.unaccounted.isEmpty } }

    public var json: JSONValue {
        .object([
            "schema": .string(Self.schema), "compositor": .string(compositor), "pacing": .string(pacing),
            "flash": .bool(flash), "backToBack": .bool(backToBack),
            "messages": .object([
                "sent": .integer(sent.count), "accountedForEverywhere": .bool(everyMessageAccountedFor),
            ]),
            "outputs": .array(outputs.map(\.json)), "notes": .array(notes.map { .string($0) }),
            "reference": referenceJSON,
        ])
    }

    /// Multiscreen's commit → presented median over the reference client's `-p` c2p median, per output that had
    /// `presented` (the target is ≤ 1.1).
    public var referenceRatios: [(output: String, ratio: Double)] {
        guard let low = reference.first(where: { $0.mode == "-p" }), let c2p = Distribution(low.commitToPresent),
            c2p.p50 > 0
        else { return [] }
        return outputs.compactMap { output in
            guard output.source == "presented", let ours = output.commitToShown else { return nil }
            return (output.name, Double(ours.p50) / Double(c2p.p50))
        }
    }

    private var referenceJSON: JSONValue {
        guard !reference.isEmpty else { return .null }
        var ratios: [String: JSONValue] = [:]
        for (name, ratio) in referenceRatios { ratios[name] = .number((ratio * 1000).rounded() / 1000) }
        return .object([
            "client": .string("weston-presentation-shm"), "runs": .array(reference.map(\.json)),
            "commitToPresentedRatio": .object(ratios),
        ])
    }

    /// A few lines for a person: per output, where the figures come from and the percentiles.
    public var summary: String {
        var lines = ["\(sent.count) messages\(backToBack ? " back to back" : ""), \(compositor), pacing \(pacing)"]
        for output in outputs {
            let refresh = output.refreshNanoseconds > 0 ? " (refresh \(Self.ms(output.refreshNanoseconds)) ms)" : ""
            lines.append("\(output.name)\(refresh): message → \(output.source)")
            if let d = output.messageToShown {
                lines.append(
                    "  p50 \(Self.ms(d.p50))  p90 \(Self.ms(d.p90))  p99 \(Self.ms(d.p99))  p99.9 \(Self.ms(d.p999))  max \(Self.ms(d.max)) ms"
                )
            }
            if let drain = output.enqueueToDrain, let commit = output.drainToCommit, let shown = output.commitToShown {
                lines.append(
                    "  median split: enqueue→drain \(Self.ms(drain.p50)), drain→commit \(Self.ms(commit.p50)), commit→\(output.source) \(Self.ms(shown.p50)) ms"
                )
            }
            var counts =
                "  messages: \(output.count("presented")) presented, \(output.count("frameDone")) frame-done, \(output.count("lost")) lost, \(output.unaccounted.count) unaccounted"
            if let frames = output.frames {
                counts +=
                    "; frames: \(frames.presented) presented, \(frames.discarded) discarded, \(frames.missedVblanks) missed vblanks"
            }
            lines.append(counts)
        }
        for run in reference {
            if let c2p = Distribution(run.commitToPresent) {
                lines.append(
                    "reference weston-presentation-shm \(run.mode): c2p p50 \(Self.ms(c2p.p50)) p99 \(Self.ms(c2p.p99)) ms over \(c2p.count) frames"
                )
            }
        }
        for (name, ratio) in referenceRatios {
            let rounded = (ratio * 100).rounded() / 100
            lines.append("\(name): commit → presented median / reference -p c2p median = \(rounded)")
        }
        lines += notes
        return lines.joined(separator: "\n")
    }

    static func ms(_ ns: UInt64) -> String {
        let hundredths = (ns + 5000) / 10_000
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
