import FrameTiming
import Messaging
import Outputs
import Screens

/// The document `status` answers with: screens with role, content and frame statistics, cards, the recent log,
/// the bus counters and every message source's counters (nothing dropped silently: refusals are counted here).
struct StatusReport {
    let json: [String: JSONValue]

    init(_ product: ProductController, vitals: Vitals) {
        let model = product.model
        let screens: [JSONValue] = product.outputs.map { info in
            var entry = Self.json(info).objectValue
            switch product.kind(of: info.registryName) {
            case .controller:
                entry["role"] = .string("controller")
            case .external(let mode):
                entry["role"] = .string(model.assignment.roles[info.registryName]?.rawValue ?? "external")
                entry["content"] = .string(mode.rawValue)
            case .web(let url):
                let isController = model.assignment.controller == info.registryName
                entry["role"] = .string(
                    isController ? "controller" : model.assignment.roles[info.registryName]?.rawValue ?? "external")
                entry["content"] = .string("web")
                entry["url"] = .string(url)
                if let page = vitals.pages[info.registryName] { entry["web"] = .object(page) }
            case .media(let shown):
                entry["role"] = .string(model.assignment.roles[info.registryName]?.rawValue ?? "external")
                entry["content"] = .string(shown.kind.rawValue)
                var media: [String: JSONValue] = [
                    "path": .string(shown.item.path), "fit": .string(shown.item.fit.rawValue),
                    "rotate": .integer(shown.item.rotation.rawValue), "loop": .bool(shown.item.loop),
                    "audio": .bool(shown.item.audio),
                ]
                // The start on the wall clock it plays from: a playlist item's turn, or a `media.show`'s `at`.
                if let start = shown.item.clockStart { media["at"] = .number(start) }
                if let playing = vitals.media[info.registryName] { media.merge(playing) { $1 } }
                entry["media"] = .object(media)
            case .slide:
                // Only a playlist shows slides: `content` is `playlist` below, its item the slide's source.
                entry["role"] = .string(model.assignment.roles[info.registryName]?.rawValue ?? "external")
            }
            if let (playlist, index) = model.playlistItem(of: info.registryName) {
                entry["content"] = .string("playlist")
                var shown: [String: JSONValue] = [
                    "items": .integer(playlist.items.count), "index": .integer(index),
                    "source": .string(playlist.items[index].source),
                    // The item on screen: `index` unless its asset is not cached yet (the one before it that is).
                    "shownIndex": model.shownItem(of: playlist, at: index).map { .integer($0) } ?? .null,
                    "until": .number(model.playlistPosition(of: info, at: vitals.wallClock)?.next ?? .infinity),
                ]
                if playlist.pausedAt != nil { shown["paused"] = .bool(true) }
                entry["playlist"] = .object(shown)
            }
            if let schedule = model.scheduleName(of: info) {
                entry["schedule"] = .object([
                    "name": .string(schedule), "now": ProductController.json(model.scheduled[info.displayName]),
                ])
            }
            // While an interrupt plays, `playlist` above is the interrupt's; what it interrupts comes back at `ends`.
            if let interrupt = model.interrupt(of: info) {
                entry["interrupt"] = .object([
                    "ends": interrupt.ends.map { .number($0) } ?? .null,
                    "items": .integer(interrupt.playlist.items.count),
                ])
            }
            // A `media.show` read and waiting for its start: the screen switches to it then.
            if let starting = model.startingMedia[info.displayName], let at = starting.item.clockStart {
                entry["mediaStart"] = .object(["path": .string(starting.item.path), "at": .number(at)])
            }
            entry["power"] = .string(product.power(of: info.registryName).rawValue)
            if let method = vitals.powerMethods[info.registryName] { entry["powerMethod"] = .string(method) }
            if let path = vitals.framePaths[info.registryName] { entry["framePath"] = .string(path) }
            if let health = vitals.health[info.registryName] {
                entry["health"] = .string(health.state)
                entry["lastShownSecondsAgo"] = health.lastShownSecondsAgo.map { .number($0) } ?? .null
            }
            if let s = vitals.frames[info.registryName] {
                entry["frames"] = .object([
                    "committed": .integer(s.committed), "presented": .integer(s.presented),
                    "discarded": .integer(s.discarded), "frameDoneFallbacks": .integer(s.frameDoneFallbacks),
                    "feedbackSkipped": .integer(s.feedbackSkipped),
                    "latencyMedianMs": s.rollingMedianNanoseconds.map { .number(Double($0) / 1e6) } ?? .null,
                ])
            }
            if let latency = vitals.latency[info.registryName] {
                entry["latency"] = Self.json(latency, now: vitals.now)
            }
            return .object(entry)
        }
        let controller = model.assignment.controller.flatMap { name in
            product.outputs.first { $0.registryName == name }?.displayName
        }
        var json: [String: JSONValue] = [
            "pacing": .string(vitals.pacing), "flash": .bool(vitals.flash),
            "mirror": .object(
                ["path": .string(vitals.mirrorPath), "reason": .optional(vitals.mirrorPathReason)].merging(
                    vitals.sharedFrames.mapValues { .integer($0) }
                ) { $1 }),
            "screens": .array(screens),
            "memory": .object(vitals.memory.mapValues { .integer($0) }),
            "controller": .optional(controller),
            "cards": .array(
                model.cards.cards.map { card in
                    .object([
                        "id": .integer(Int(card.id)), "text": .string(card.text), "screen": .optional(card.screen),
                    ])
                }),
            "messages": .array(
                model.log.newestFirst.prefix(20).map { message in
                    .object([
                        "id": .integer(Int(message.id)), "text": .string(message.text),
                        "screen": .optional(message.screen),
                        "receivedAt": .number(message.receivedAt.timeIntervalSince1970),
                    ])
                }),
            "bus": .object([
                "enqueued": .integer(vitals.bus.enqueued), "drained": .integer(vitals.bus.drained),
                "rejectedFull": .integer(vitals.bus.rejectedFull), "maxDepth": .integer(vitals.bus.maxDepth),
                "wakeups": .integer(vitals.wakeups), "applied": .integer(vitals.applied),
            ]),
        ]
        json["config"] = .object([
            "path": .string(product.configStanding.path), "source": .string(product.configStanding.source.rawValue),
            "error": .optional(product.configStanding.error),
        ])
        json["state"] = .object([
            "path": .string(product.store.path), "saves": .integer(product.saves.written),
            "failures": .integer(product.saves.failed), "lastError": .optional(product.saves.lastError),
            "unsaved": .bool(product.hasUnsavedState),
        ])
        json["playHistory"] = .object([
            "path": .string(product.playHistory.path), "unwritten": .integer(product.playHistory.unwrittenCount),
            "lost": .integer(product.playHistory.lost), "lastError": .optional(product.playHistory.lastError),
        ])
        if let assets = vitals.assets { json["assets"] = .object(assets) }
        if !vitals.webEngine.isEmpty { json["web"] = .object(vitals.webEngine) }
        for (name, counters) in vitals.sources {
            json[name] = .object(counters.mapValues { .integer($0) })
        }
        for (name, notes) in vitals.sourceNotes where !notes.isEmpty {
            var members = json[name]?.objectValue ?? [:]
            for (key, text) in notes { members[key] = .string(text) }
            json[name] = .object(members)
        }
        self.json = json
    }

    /// One output as `outputs` and `status` show it.
    static func json(_ info: OutputInfo) -> JSONValue {
        .object([
            "name": .string(info.displayName), "description": .string(info.description ?? ""),
            "make": .string(info.make), "model": .string(info.model),
            "width": .integer(Int(info.modeWidth)), "height": .integer(Int(info.modeHeight)),
            "refreshMilliHertz": .integer(Int(info.refreshMilliHertz)), "scale": .integer(Int(info.scale)),
            "x": .integer(Int(info.logicalX)), "y": .integer(Int(info.logicalY)),
        ])
    }
}

extension StatusReport {
    /// A screen's message latency in `status`: the last minute's p50/p99 of message → shown (ms), where the times
    /// come from, and the totals since start.
    static func json(_ latency: ScreenLatency, now: UInt64) -> JSONValue {
        let minute = latency.window.summary(now: now)
        let ms: (UInt64?) -> JSONValue = { $0.map { .number(Double($0) / 1e6) } ?? .null }
        return .object([
            "source": .optional(latency.source?.rawValue), "clock": .string(latency.clock),
            "lastMinute": .object([
                "messages": .integer(minute.count), "p50Ms": ms(minute.p50), "p99Ms": ms(minute.p99),
            ]),
            "messagesPresented": .integer(latency.presented), "messagesFrameDone": .integer(latency.frameDone),
            "messagesLost": .integer(latency.lost), "missedVblanks": .integer(latency.missedVblanks),
        ])
    }
}

extension Event {
    /// `frame.shown`: a frame of `screen` that first shows `messages` reached the screen (`source` `presented`:
    /// `wp_presentation` time; `frameDone`: the frame callback, where `presented` never came) or never will
    /// (`lost`, `shownAt` null). Times are `CLOCK_MONOTONIC` ns, the clock of the messages' `enqueuedAt`, so
    /// a subscriber gets message → shown and its split (enqueue → drain → commit → shown) by subtraction.
    public static func frameShown(screen: String, _ report: FrameLatencyReport, clock: String) -> Event {
        Event(
            name: Name.frameShown.rawValue,
            params: [
                "screen": .string(screen), "frame": .integer(Int(report.frame)),
                "source": .string(report.source.rawValue),
                "committedAt": .integer(Int(report.committedAt)),
                "shownAt": report.shownAt.map { .integer(Int($0)) } ?? .null,
                "seq": .integer(Int(clamping: report.sequence)),
                "refreshNs": .integer(Int(clamping: report.refreshNanoseconds)),
                "flags": .array(report.flags.names.map { .string($0) }),
                "missedVblanks": .integer(report.missedVblanks),
                "clock": .string(clock),
                "patch": report.patchWhite.map { .string($0 ? "white" : "black") } ?? .null,
                "messages": .array(
                    report.messages.map {
                        .object([
                            "id": .integer(Int($0.id)), "enqueuedAt": .integer(Int($0.enqueuedAt)),
                            "drainedAt": .integer(Int($0.drainedAt)),
                        ])
                    }),
            ])
    }
}
