import Messaging

/// One message's way into a page and onto the screen, stamped at each hand-over (``MonotonicClock`` ns), so the
/// page path's latency can be split into the part that is ours and the part that is WebKit's:
///
/// enqueued (the bus) → drained (the display thread took it) → delivered (the delivery script handed to WebKit) →
/// exported (wpebackend-fdo handed us the page's next frame; WebKit's IPC, the script, layout and the software paint
/// in the web process are all before this) → drawn (our draw of that screen started: the upload, then the frame) →
/// committed → shown (the compositor's frame callback). `ran` (the web process answered the script) is a side
/// branch of WebKit's part: it says how much of it is the script's round trip. The export is a GLib source of the
/// display thread: while that thread draws, a finished frame waits, so part of "WebKit's" span may be ours
/// (`exportWaitedAtMost` bounds it).
struct PageMessageTrace {
    let id: UInt64
    let enqueuedAt: UInt64
    let drainedAt: UInt64
    /// When the script carrying it was handed to WebKit, and that script's number in its ``WebContent/WebView``:
    /// nil while the message is held back to go in one script with the rest of what the page is handed for it.
    var deliveredAt: UInt64?
    var script: UInt64?
    var ranAt: UInt64?
    var exportedAt: UInt64?
    /// How long the frame may have waited for the display thread before the export reached us, at most (ns).
    var exportWaitedAtMost: UInt64?
    var drawnAt: UInt64?

    /// The stages in order: name and what the span is.
    static let stageNames = [
        "bus", "delivery", "script", "webkitFrame", "exportWaitedAtMost", "waitForDraw", "draw", "present",
    ]

    /// Each stage's length in ms once the frame was shown (nil where a stamp is missing), and the total.
    func stages(committedAt: UInt64?, shownAt: UInt64) -> (stages: [String: Double], total: Double) {
        func span(_ from: UInt64?, _ to: UInt64?) -> Double? {
            guard let from, let to else { return nil }
            return to >= from ? Double(to - from) / 1e6 : 0
        }
        let pairs: [(String, Double?)] = [
            ("bus", span(enqueuedAt, drainedAt)),
            ("delivery", span(drainedAt, deliveredAt)),
            ("script", span(deliveredAt, ranAt)),
            ("webkitFrame", span(deliveredAt, exportedAt)),
            ("exportWaitedAtMost", exportWaitedAtMost.map { Double($0) / 1e6 }),
            ("waitForDraw", span(exportedAt, drawnAt)),
            ("draw", span(drawnAt, committedAt)),
            ("present", span(committedAt, shownAt)),
        ]
        var stages: [String: Double] = [:]
        for (name, value) in pairs { if let value { stages[name] = value } }
        return (stages, span(enqueuedAt, shownAt) ?? 0)
    }

    /// For `status`: each stage's p50 and p99 over `samples`, and each stage's median over the slowest tenth of the
    /// messages (what the tail is made of; percentiles of the stages need not add up to the total's).
    static func summary(_ samples: [(stages: [String: Double], total: Double)]) -> JSONValue {
        func rank(_ sorted: [Double], _ p: Double) -> Double {
            sorted[min(sorted.count - 1, max(Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1, 0))]
        }
        var stages: [String: JSONValue] = [:]
        let cutoff = rank(samples.map(\.total).sorted(), 90)
        let tail = samples.filter { $0.total >= cutoff }
        for name in stageNames {
            let values = samples.compactMap { $0.stages[name] }.sorted()
            guard !values.isEmpty else { continue }
            var entry: [String: JSONValue] = ["p50Ms": .number(rank(values, 50)), "p99Ms": .number(rank(values, 99))]
            let tailValues = tail.compactMap { $0.stages[name] }.sorted()
            if !tailValues.isEmpty { entry["slowestTenthMedianMs"] = .number(rank(tailValues, 50)) }
            stages[name] = .object(entry)
        }
        return .object(stages)
    }
}
