import Messaging
import WebContent

/// What the pages are doing, for `status`.
extension WebScreens {
    /// Each page's bridge counters, for `status` beside the other message sources.
    var sourceCounters: [String: [String: Int]] {
        Dictionary(uniqueKeysWithValues: pages.values.map { ($0.view.bridge.name, $0.view.bridge.counters) })
    }

    /// The engine: `idle` until the first page opens it (WebKit is not even loaded before), `running` once it is,
    /// `unavailable` while it could not be opened (each page asked for later tries again); the views made and closed,
    /// and the pages that could not be shown since the start, with the last reason.
    var engineStatus: [String: JSONValue] {
        let state =
            if engine != nil { "running" } else if failures > 0 { "unavailable" } else { "idle" }
        return [
            "state": .string(state), "viewsOpened": .integer(opened), "viewsClosed": .integer(closed),
            "failures": .integer(failures), "lastError": .optional(lastFailure),
        ]
    }

    /// Per screen: what its page is doing.
    var vitals: [UInt32: [String: JSONValue]] {
        Dictionary(
            uniqueKeysWithValues: pages.map { name, page in
                let view = page.view
                var entry: [String: JSONValue] = [
                    "state": .string(Self.name(of: view.state)), "framesReceived": .integer(view.framesReceived),
                    "framesDropped": .integer(view.framesDropped), "framesUploaded": .integer(page.texture.uploads),
                    "crashes": .integer(view.crashes), "hangs": .integer(view.hangs),
                    "deliveriesDroppedWhileLoading": .integer(view.scriptsDroppedWhileLoading),
                    "hangRestarts": .integer(view.hangRestarts),
                ]
                if focus.keyboard == name { entry["keyboard"] = .bool(true) }
                if let limit = config.memoryLimitMiB { entry["memoryLimitMiB"] = .integer(limit) }
                if let process = page.process, let rss = WebProcesses.residentMiB(process) {
                    entry["webProcess"] = .object(["pid": .integer(Int(process)), "rssMiB": .number(rss)])
                }
                if !page.latencies.isEmpty {
                    let sorted = page.latencies.map(\.total).sorted()
                    let rank = { (p: Double) in
                        sorted[min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)]
                    }
                    entry["latency"] = .object([
                        "messages": .integer(sorted.count), "p50Ms": .number(rank(50)), "p99Ms": .number(rank(99)),
                        "to": .string("frameDone"), "stages": PageMessageTrace.summary(page.latencies),
                    ])
                }
                switch view.state {
                case .failed(let reason), .crashed(let reason, _): entry["reason"] = .string(reason)
                default: break
                }
                return (name, entry)
            })
    }

    static func name(of state: WebView.State) -> String {
        switch state {
        case .loading: "loading"
        case .shown: "shown"
        case .failed: "failed"
        case .crashed: "crashed"
        case .unresponsive: "unresponsive"
        }
    }
}
