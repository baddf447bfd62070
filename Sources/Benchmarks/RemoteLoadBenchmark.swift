import CompositorHarness
import Foundation
import Logging
import Messaging
import Synchronization

extension DisplayBenchmarks {
    /// `clients` phones at once for `seconds`, in two rounds of half that: each phone either claims the freshest
    /// code (the kiosk shows one every few seconds while someone is in control, as after `hold`) and sends twice a
    /// second until superseded, or, with no code to hand, tries the WebSocket without a session (refused, counted).
    /// Beside them, 50 local `status` requests a second, whose `remote.controllerActive` is checked every time, and
    /// 5 local `send`s a second whose frames are timed (enqueue → commit on each screen, from the kiosk's log); the
    /// same requests alone first (10 s), as the baseline. RSS and open fds of the kiosk before, and after each round
    /// once the connections have closed: a second round that adds nothing says the first one's growth was a
    /// high-water mark, not a leak.
    public func remoteLoad(clients: Int, seconds: Double) throws -> [BenchmarkResult] {
        let port = Int.random(in: 20000..<40000)
        let config = "[remote]\nlisten = \"127.0.0.1:\(port)\"\nidle = 3600\nhold = 3\nttl = 3600\n"
        let instance = try Instance(
            binary: binary, outputs: 2, width: width, height: height, config: config, cpus: cpus)
        defer { instance.stop() }
        _ = try instance.sway.waitForNewQRCode(on: "HEADLESS-2")
        var probe = 0
        /// Local requests for `duration`: their latencies, the most controllers any `status` saw, the ids of the
        /// messages sent to time frames with.
        func local(for duration: Double) throws -> (latencies: [Double], maxControllers: Int, sent: [Int]) {
            var latencies: [Double] = []
            var maxControllers = 0
            var sent: [Int] = []
            let end = Date().addingTimeInterval(duration)
            var next = Date()
            var turn = 0
            while Date() < end {
                let started = MonotonicClock.nanoseconds()
                let reply = try instance.client.exchange(line: #"{"method":"status"}"#)
                latencies.append(Double(MonotonicClock.nanoseconds() - started) / 1e6)
                if let range = reply.range(of: #""controllerActive":"#),
                    let active = Int(reply[range.upperBound...].prefix { $0.isNumber })
                {
                    maxControllers = max(maxControllers, active)
                }
                turn += 1
                if turn % 10 == 0 {
                    probe += 1
                    sent.append(try instance.send("probe \(probe)"))
                }
                next = next.addingTimeInterval(1.0 / 50)
                let wait = next.timeIntervalSinceNow
                if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            }
            return (latencies, maxControllers, sent)
        }
        // As long as one round of load, so that the frames alone have as many samples as a round (a p99 of 50
        // samples is nearly their maximum); its two halves compared give the noise the load is judged against.
        /// Frames each screen committed while `body` ran (from `status` before and after).
        func countingFrames<T>(_ body: () throws -> T) throws -> (T, [String: Int]) {
            let start = Self.committedFrames(try instance.client.exchange(line: #"{"method":"status"}"#))
            let result = try body()
            let end = Self.committedFrames(try instance.client.exchange(line: #"{"method":"status"}"#))
            return (result, end.merging(start.mapValues { -$0 }) { $0 + $1 })
        }
        let (baseline, framesAlone) = try countingFrames { try local(for: seconds / 2) }
        let before = try Self.resources(pid: instance.app.pid)
        let shared = LoadState()
        var loaded: (latencies: [Double], maxControllers: Int, sent: [Int]) = ([], 0, [])
        var framesLoaded: [String: Int] = [:]
        var afterRounds: [(rss: Double, fds: Double)] = []
        for _ in 0..<2 {
            let (round, frames) = try loadRound(
                clients: clients, port: port, sway: instance.sway, shared: shared,
                while: { try countingFrames { try local(for: seconds / 2) } })
            framesLoaded.merge(frames) { $0 + $1 }
            loaded.latencies += round.latencies
            loaded.maxControllers = max(loaded.maxControllers, round.maxControllers)
            loaded.sent += round.sent
            Thread.sleep(forTimeInterval: 5)  // connections closing, pages' grace
            afterRounds.append(try Self.resources(pid: instance.app.pid))
        }
        var results: [BenchmarkResult] = []
        for (subject, values) in [
            ("local-status-alone", baseline.latencies), ("local-status-under-load", loaded.latencies),
        ] {
            for (metric, p) in [("p50", 50.0), ("p99", 99.0)] {
                results.append(
                    BenchmarkResult(
                        benchmark: "remote-load", subject: subject, metric: metric,
                        value: SampleStatistics.percentile(values, p), unit: "ms", samples: values.count))
            }
        }
        // Frames: how long after its enqueue each screen committed the frame showing a local message, alone and
        // under the load (the phones' own messages redraw the screens too: that is part of the load).
        let log = instance.app.output
        let commits = Self.enqueueToCommit(in: log)
        let breakdown = Self.probeWaits(in: log)
        for screen in ["HEADLESS-1", "HEADLESS-2"] {
            results += Self.framesUnderLoad(
                benchmark: "remote-load", screen: screen, commits: commits, quiet: ("alone", baseline.sent),
                loaded: ("under-load", loaded.sent))
            // Where the probes' time went (the kiosk's own split of each), and how many frames the screen
            // committed per second in each phase: what the load adds to draw.
            for (phase, ids, frames) in [
                ("alone", baseline.sent, framesAlone), ("under-load", loaded.sent, framesLoaded),
            ] {
                let parts = ids.compactMap { breakdown[screen]?[$0] }
                for part in ProbeWait.allCases {
                    for (metric, p) in [("p50", 50.0), ("p99", 99.0)] {
                        results.append(
                            BenchmarkResult(
                                benchmark: "remote-load", subject: "frames-\(phase)/\(screen)",
                                metric: "\(part.rawValue)-\(metric)",
                                value: SampleStatistics.percentile(parts.map { $0[part] ?? 0 }, p), unit: "ms",
                                samples: parts.count))
                    }
                }
                // The slowest 2 % of probes: how much of their time each part took, on average.
                let slowest = parts.sorted { $0.values.reduce(0, +) > $1.values.reduce(0, +) }
                    .prefix(max(parts.count / 50, 1))
                for part in ProbeWait.allCases {
                    results.append(
                        BenchmarkResult(
                            benchmark: "remote-load", subject: "frames-\(phase)/\(screen)",
                            metric: "slowest-2%-mean-\(part.rawValue)",
                            value: slowest.map { $0[part] ?? 0 }.reduce(0, +) / Double(max(slowest.count, 1)),
                            unit: "ms", samples: slowest.count))
                }
                results.append(
                    BenchmarkResult(
                        benchmark: "remote-load", subject: "frames-\(phase)/\(screen)",
                        metric: "probes-behind-a-frame",
                        value: Double(parts.filter { ($0[.behindFrame] ?? 0) > 0 }.count)
                            / Double(max(parts.count, 1)), unit: "share", samples: parts.count))
                results.append(
                    BenchmarkResult(
                        benchmark: "remote-load", subject: "frames-\(phase)/\(screen)", metric: "committed-per-s",
                        value: Double(frames[screen] ?? 0) / (phase == "alone" ? seconds / 2 : seconds),
                        unit: "frames/s"))
            }
        }
        results.append(
            BenchmarkResult(
                benchmark: "remote-load", subject: "controllers", metric: "max-active-seen",
                value: Double(max(baseline.maxControllers, loaded.maxControllers)), unit: "count",
                samples: baseline.latencies.count + loaded.latencies.count))
        for (key, value) in shared.counts.sorted(by: { $0.key < $1.key }) {
            results.append(
                BenchmarkResult(
                    benchmark: "remote-load", subject: "phones", metric: key, value: Double(value), unit: "count"))
        }
        var resources = [("before", before)]
        for (index, after) in afterRounds.enumerated() { resources.append(("after-round-\(index + 1)", after)) }
        for (when, measured) in resources {
            results.append(
                BenchmarkResult(
                    benchmark: "remote-load", subject: "kiosk", metric: "rss-\(when)", value: measured.rss,
                    unit: "MiB"))
            results.append(
                BenchmarkResult(
                    benchmark: "remote-load", subject: "kiosk", metric: "fds-\(when)", value: measured.fds,
                    unit: "count"))
        }
        return results
    }

    /// One round of the load: the phones' threads and the code watcher run while `body` runs, then stop.
    private func loadRound<T>(
        clients: Int, port: Int, sway: HeadlessSway, shared: LoadState, while body: () throws -> T
    ) throws -> T {
        shared.start()
        let bump = shared.bump
        // The watcher reads the screen; the compositor object is only read from there.
        nonisolated(unsafe) let sway = sway
        let finished = DispatchGroup()
        for _ in 0..<clients {
            finished.enter()
            let thread = Thread {
                defer { finished.leave() }
                while !shared.stopped {
                    do {
                        if let token = shared.takeToken() {
                            guard let cookie = try RawWebSocketClient(port: port).claim(code: token, port: port) else {
                                bump("claimsRefused")
                                continue
                            }
                            bump("claims")
                            let phone = try RawWebSocketClient(port: port)
                            guard try phone.upgrade(port: port, cookie: cookie) == 101 else {
                                bump("upgradesRefused")
                                continue
                            }
                            while !shared.stopped {
                                try phone.sendText(#"{"method":"send","params":{"text":"load"}}"#)
                                bump("sent")
                                var reply = ""
                                while !reply.contains("result") && !reply.contains("error") {
                                    guard let line = try phone.readText() else { break }
                                    reply = line
                                }
                                if reply.isEmpty || reply.contains("superseded") {
                                    bump("superseded")
                                    break
                                }
                                Thread.sleep(forTimeInterval: 0.5)
                            }
                        } else {
                            let status = try RawWebSocketClient(port: port).upgrade(port: port, cookie: nil)
                            bump("upgradeWithoutSession\(status)")
                            Thread.sleep(forTimeInterval: 1)
                        }
                    } catch {
                        bump("clientErrors")
                        Thread.sleep(forTimeInterval: 0.2)
                    }
                }
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
        // Hand each fresh code to the phones, read off the screen as a phone's camera does (the code is in no log):
        // the QR code's quarter of one external screen, a small picture for zbarimg.
        finished.enter()
        let watcher = Thread {
            defer { finished.leave() }
            var seen = Set<String>()
            while !shared.stopped {
                if let link = try? sway.screenshot("HEADLESS-2").qrCodeText(corner: "bottom-right"),
                    let token = link.components(separatedBy: "?code=").last, seen.insert(token).inserted
                {
                    shared.offer(token)
                }
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
        watcher.start()
        defer {
            shared.stop()
            finished.wait()
        }
        return try body()
    }

    /// Every `latency: message #ID on SCREEN committed at …, enqueue→commit X ms` line of a kiosk's log, in one
    /// pass: screen → message id → milliseconds.
    static func enqueueToCommit(in log: String) -> [String: [Int: Double]] {
        var found: [String: [Int: Double]] = [:]
        for line in log.split(separator: "\n") {
            guard let start = line.range(of: "latency: message #"),
                let on = line.range(of: " on ", range: start.upperBound..<line.endIndex),
                let id = Int(line[start.upperBound..<on.lowerBound]),
                let committed = line.range(of: " committed at ", range: on.upperBound..<line.endIndex),
                let marker = line.range(of: "enqueue→commit ", range: committed.upperBound..<line.endIndex),
                let milliseconds = Double(line[marker.upperBound...].prefix { $0.isNumber || $0 == "." })
            else { continue }
            found[String(line[on.upperBound..<committed.lowerBound]), default: [:]][id] = milliseconds
        }
        return found
    }

    /// The kiosk's split of each message's drain → commit time (the same log lines as ``enqueueToCommit(in:)``):
    /// screen → message id → part → milliseconds.
    static func probeWaits(in log: String) -> [String: [Int: [ProbeWait: Double]]] {
        var found: [String: [Int: [ProbeWait: Double]]] = [:]
        for line in log.split(separator: "\n") {
            guard let start = line.range(of: "latency: message #"),
                let on = line.range(of: " on ", range: start.upperBound..<line.endIndex),
                let id = Int(line[start.upperBound..<on.lowerBound]),
                let committed = line.range(of: " committed at ", range: on.upperBound..<line.endIndex)
            else { continue }
            var parts: [ProbeWait: Double] = [:]
            for part in ProbeWait.allCases {
                guard let marker = line.range(of: ", \(part.logLabel) ", range: committed.upperBound..<line.endIndex),
                    let milliseconds = Double(line[marker.upperBound...].prefix { $0.isNumber || $0 == "." })
                else { continue }
                parts[part] = milliseconds
            }
            if !parts.isEmpty { found[String(line[on.upperBound..<committed.lowerBound]), default: [:]][id] = parts }
        }
        return found
    }

    /// Frames committed so far by each screen (output name), from a `status` reply.
    static func committedFrames(_ reply: String) -> [String: Int] {
        guard let data = reply.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let result = object["result"] as? [String: Any], let screens = result["screens"] as? [[String: Any]]
        else { return [:] }
        var counts: [String: Int] = [:]
        for screen in screens {
            if let name = screen["name"] as? String, let frames = screen["frames"] as? [String: Any],
                let committed = frames["committed"] as? Int
            {
                counts[name] = committed
            }
        }
        return counts
    }

    /// Resident memory (MiB, `VmRSS`) and open file descriptors of `pid`.
    static func resources(pid: pid_t) throws -> (rss: Double, fds: Double) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { throw HarnessError("cannot read /proc/\(pid)/status") }
        let fds = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        return (kilobytes / 1024, Double(fds))
    }
}

/// What the load's threads share: the freshest code to claim, the counts, the stop flag.
private final class LoadState: Sendable {
    private let token = Mutex<String?>(nil)
    private let tally = Mutex<[String: Int]>([:])
    private let stopFlag = Atomic<Bool>(false)

    var stopped: Bool { stopFlag.load(ordering: .relaxed) }
    func start() { stopFlag.store(false, ordering: .relaxed) }
    func stop() { stopFlag.store(true, ordering: .relaxed) }
    /// Only the newest code is worth claiming: an older one is spent or replaced.
    func offer(_ code: String) { token.withLock { $0 = code } }
    func takeToken() -> String? { token.withLock { $0.take() } }
    var bump: @Sendable (String) -> Void { { [self] key in tally.withLock { $0[key, default: 0] += 1 } } }
    var counts: [String: Int] { tally.withLock { $0 } }
}

/// Where a message's time from enqueue to commit went on one screen, as the kiosk logs it: on the bus until the
/// display thread drained it; behind the screen's previous frame (its callback or the compositor's sync not back);
/// behind the display thread (other screens drawn first, other work); drawing and committing its own frame.
enum ProbeWait: String, CaseIterable, Sendable {
    case queued
    case behindFrame = "behind-frame"
    case behindThread = "behind-thread"
    case drawn

    var logLabel: String {
        switch self {
        case .queued: "queued"
        case .behindFrame: "behind frame"
        case .behindThread: "behind thread"
        case .drawn: "drawn"
        }
    }
}
