import CompositorHarness
import Foundation
import Logging
import Messaging
import Synchronization

extension DisplayBenchmarks {
    /// `clients` phones at once for `seconds`: each either claims the freshest code (the kiosk shows one every few
    /// seconds while someone is in control, as after `hold`) and sends twice a second until superseded, or, with no
    /// code to hand, tries the WebSocket without a session (refused, counted). Beside them, 50 local `status`
    /// requests a second, whose `remote.controllerActive` is checked every time; the same requests alone first, as
    /// the baseline. RSS and open fds of the kiosk before and after.
    public func remoteLoad(clients: Int, seconds: Double) throws -> [BenchmarkResult] {
        let port = Int.random(in: 20000..<40000)
        let config = "[remote]\nlisten = \"127.0.0.1:\(port)\"\nidle = 3600\nhold = 3\nttl = 3600\n"
        let instance = try Instance(binary: binary, outputs: 2, width: width, height: height, config: config)
        defer { instance.stop() }
        _ = try instance.app.waitForLine(containing: "remote link ", timeout: 10)
        func local(for duration: Double) throws -> (latencies: [Double], maxControllers: Int) {
            var latencies: [Double] = []
            var maxControllers = 0
            let end = Date().addingTimeInterval(duration)
            var next = Date()
            while Date() < end {
                let started = MonotonicClock.nanoseconds()
                let reply = try instance.client.exchange(line: #"{"method":"status"}"#)
                latencies.append(Double(MonotonicClock.nanoseconds() - started) / 1e6)
                if let range = reply.range(of: #""controllerActive":"#),
                    let active = Int(reply[range.upperBound...].prefix { $0.isNumber })
                {
                    maxControllers = max(maxControllers, active)
                }
                next = next.addingTimeInterval(1.0 / 50)
                let wait = next.timeIntervalSinceNow
                if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            }
            return (latencies, maxControllers)
        }
        let baseline = try local(for: 10)
        let before = try Self.resources(pid: instance.app.pid)
        let shared = LoadState()
        let bump = shared.bump
        // The watcher reads the kiosk's log; the process object is only read from there.
        nonisolated(unsafe) let app = instance.app
        var threads: [Thread] = []
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
            threads.append(thread)
            thread.start()
        }
        // Hand each fresh code (logged by the kiosk, as the QR code shows it) to the phones.
        let watcher = Thread {
            var seen = Set<String>()
            while !shared.stopped {
                for line in app.output.split(separator: "\n") where line.contains("remote link ") {
                    guard let token = line.components(separatedBy: "?code=").last?.prefix(while: { $0 != " " }),
                        seen.insert(String(token)).inserted
                    else { continue }
                    shared.offer(String(token))
                }
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
        watcher.start()
        let loaded = try local(for: seconds)
        shared.stop()
        finished.wait()
        Thread.sleep(forTimeInterval: 5)  // connections closing, pages' grace
        let after = try Self.resources(pid: instance.app.pid)
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
        results.append(contentsOf: [
            BenchmarkResult(
                benchmark: "remote-load", subject: "kiosk", metric: "rss-before", value: before.rss, unit: "MiB"),
            BenchmarkResult(
                benchmark: "remote-load", subject: "kiosk", metric: "rss-after", value: after.rss, unit: "MiB"),
            BenchmarkResult(
                benchmark: "remote-load", subject: "kiosk", metric: "fds-before", value: before.fds, unit: "count"),
            BenchmarkResult(
                benchmark: "remote-load", subject: "kiosk", metric: "fds-after", value: after.fds, unit: "count"),
        ])
        return results
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
    func stop() { stopFlag.store(true, ordering: .relaxed) }
    /// Only the newest code is worth claiming: an older one is spent or replaced.
    func offer(_ code: String) { token.withLock { $0 = code } }
    func takeToken() -> String? { token.withLock { $0.take() } }
    var bump: @Sendable (String) -> Void { { [self] key in tally.withLock { $0[key, default: 0] += 1 } } }
    var counts: [String: Int] { tally.withLock { $0 } }
}
