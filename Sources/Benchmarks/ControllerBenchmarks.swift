import CompositorHarness
import Foundation
import Messaging
import Remote

/// The benchmarks of issue 4: message → pixels committed on the external screens, and the cost of mirroring.
extension DisplayBenchmarks {
    /// A Multiscreen on its own headless sway with private config, state and control socket.
    struct Instance {
        let sway: HeadlessSway
        let app: ChildProcess
        let home: String
        var client: ControlClient { ControlClient(path: home + "/control.sock") }

        /// - Parameter cpus: When given, the compositor and the kiosk are pinned to one CPU and this process to the
        ///   other once the kiosk is up.
        init(
            binary: String, outputs: Int, width: Int, height: Int, config: String = "", arguments: [String] = [],
            cpus: CPUSplit? = nil
        ) throws {
            sway = try HeadlessSway(outputs: outputs, width: width, height: height)
            home = FileManager.default.temporaryDirectory.appendingPathComponent("ms-bench-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(
                atPath: home + "/config/multiscreen", withIntermediateDirectories: true)
            try config.write(toFile: home + "/config/multiscreen/config.toml", atomically: true, encoding: .utf8)
            app = try ChildProcess(
                binary, ["run", "--log-level", "debug"] + arguments,
                environment: sway.environment.merging([
                    "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config",
                    "MULTISCREEN_SOCKET": home + "/control.sock",
                ]) { $1 })
            for index in 1...outputs {
                _ = try app.waitForLine(containing: "first frame committed on HEADLESS-\(index)", timeout: 30)
            }
            try app.waitUntilQuiet()  // the first frames' callbacks and presentation feedback
            try cpus?.apply(kioskProcesses: [sway.pid, app.pid])
        }

        /// Sends a message through the control socket; returns its id.
        func send(_ text: String, screen: String? = nil) throws -> Int {
            let reply = try client.exchange(line: MessageCodec.encodeRequest(.send(text: text, screen: screen)))
            guard let range = reply.range(of: #""id":"#),
                let id = Int(reply[range.upperBound...].prefix { $0.isNumber })
            else { throw HarnessError("unexpected reply \(reply)") }
            return id
        }

        func stop() {
            app.kill()
            sway.stop()
            try? FileManager.default.removeItem(atPath: home)
        }
    }

    /// Sums `render pass: 3 screens, 24.74 ms CPU` lines: (CPU milliseconds, screens drawn).
    static func renderPasses(in log: String) -> (cpu: Double, screens: Double) {
        var cpu = 0.0
        var screens = 0.0
        for line in log.split(separator: "\n") where line.contains("render pass: ") {
            let words = line.split(separator: " ")
            if let at = words.firstIndex(of: "pass:"), let n = Double(words[at + 1]),
                let ms = words.firstIndex(of: "ms").flatMap({ Double(words[$0 - 1]) })
            {
                cpu += ms
                screens += n
            }
        }
        return (cpu, screens)
    }

    /// `latency: message #7 on HEADLESS-2 committed at 123456789 ns, enqueue→commit 3.21 ms, drain→commit 2.80 ms, …`:
    /// the numbers after those two labels (the line goes on with where the time went).
    static func latencies(in log: String, id: Int, screen: String) -> (enqueue: Double, drain: Double)? {
        guard
            let line = log.split(separator: "\n").first(where: { $0.contains("latency: message #\(id) on \(screen) ") })
        else { return nil }
        func number(after label: String) -> Double? {
            guard let range = line.range(of: label) else { return nil }
            return Double(line[range.upperBound...].prefix { $0.isNumber || $0 == "." })
        }
        guard let enqueue = number(after: "enqueue→commit "), let drain = number(after: "drain→commit ") else {
            return nil
        }
        return (enqueue, drain)
    }

    /// Socket message → pixels committed on every external screen, against the output's refresh interval (the
    /// target: the frame after the message is drained). Self-reported: Multiscreen's own log line. Keypresses are
    /// timed from outside the process: `keypressLatency`.
    public func messageLatency(socketMessages: Int) throws -> [BenchmarkResult] {
        let instance = try Instance(binary: binary, outputs: 3, width: width, height: height)
        defer { instance.stop() }
        let externals = ["HEADLESS-2", "HEADLESS-3"]
        var enqueue: [String: [Double]] = [:]
        var drain: [String: [Double]] = [:]
        func collect(_ source: String, id: Int) throws {
            for screen in externals {
                var found: (enqueue: Double, drain: Double)?
                try waitUntil(timeout: 10, "message #\(id) on \(screen)") {
                    found = Self.latencies(in: instance.app.output, id: id, screen: screen)
                    return found != nil
                }
                enqueue[source, default: []].append(found!.enqueue)
                drain[source, default: []].append(found!.drain)
            }
        }
        for i in 0..<socketMessages {
            let id = try instance.send("probe \(i)")
            try collect("socket", id: id)
            Thread.sleep(forTimeInterval: 0.02)  // one message per frame or so, not a burst
        }
        // The refresh interval of the screens measured, as the compositor reports their mode (mHz), not assumed.
        let milliHertz = try instance.sway.outputs().first { $0.name == externals[0] }?.mode.refresh ?? 0
        guard milliHertz > 0 else { throw HarnessError("\(externals[0]) reports no refresh rate") }
        let refresh = 1_000_000.0 / Double(milliHertz)
        var results: [BenchmarkResult] = []
        for source in ["socket"] {
            guard let e = enqueue[source], let d = drain[source] else { continue }
            for (metric, values) in [("enqueue-to-commit", e), ("drain-to-commit", d)] {
                results.append(
                    BenchmarkResult(
                        benchmark: "message-latency", subject: source, metric: "\(metric)-median",
                        value: SampleStatistics.median(values), unit: "ms", samples: values.count))
                results.append(
                    BenchmarkResult(
                        benchmark: "message-latency", subject: source, metric: "\(metric)-p95",
                        value: SampleStatistics.percentile(values, 95), unit: "ms", samples: values.count))
            }
            results.append(
                BenchmarkResult(
                    benchmark: "message-latency", subject: "\(source)/refresh-interval",
                    metric: "drain-to-commit-p95-in-frames", value: SampleStatistics.percentile(d, 95) / refresh,
                    unit: "frames", samples: d.count))
        }
        return results
    }

    /// User + system CPU time a process has used so far (`/proc/PID/stat`), in ms.
    static func cpuMilliseconds(of pid: pid_t) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        // Fields after "(comm)": state is field 3, utime 14 and stime 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU (+ llvmpipe "GPU") time of the render pass after a controller change, interleaved in one run: the controller
    /// alone (the two externals blank), the controller with two mirrors (the run's mirror path: shared frames on a
    /// software renderer), and the same with `--mirror copy` (each mirror draws the controller's texture). Also the
    /// compositor's CPU per update (it now scales the mirrors), how much later the mirrors commit each update than the
    /// controller, and message → shown per screen from `status`.
    public func mirrorCost(updates: Int) throws -> [BenchmarkResult] {
        func rule(_ mode: String) -> String {
            ["HEADLESS-2", "HEADLESS-3"].map {
                "[[rule]]\nmatch = { name = \"\($0)\" }\nrole = \"external\"\ncontent = \"\(mode)\"\n"
            }.joined(separator: "\n")
        }
        let alone = try Instance(binary: binary, outputs: 3, width: width, height: height, config: rule("blank"))
        defer { alone.stop() }
        let mirrored = try Instance(binary: binary, outputs: 3, width: width, height: height, config: rule("mirror"))
        defer { mirrored.stop() }
        let copied = try Instance(
            binary: binary, outputs: 3, width: width, height: height, config: rule("mirror"),
            arguments: ["--mirror", "copy"])
        defer { copied.stop() }
        // The controller alone drawn with EGL as before (`--mirror copy` keeps it on its window surface): what the
        // shared frames' read-back replaces.
        let aloneEGL = try Instance(
            binary: binary, outputs: 3, width: width, height: height, config: rule("blank"),
            arguments: ["--mirror", "copy"])
        defer { aloneEGL.stop() }
        let scenarios = [
            ("controller-alone", alone, 1.0), ("controller-and-2-mirrors", mirrored, 3.0),
            ("controller-and-2-mirrors-texture-copy", copied, 3.0), ("controller-alone-egl", aloneEGL, 1.0),
        ]
        var samples: [String: [Double]] = [:]
        var screensDrawn: [String: [Double]] = [:]
        var mirrorCommitLag: [Double] = []
        let compositorBefore = scenarios.map { Self.cpuMilliseconds(of: $0.1.sway.pid) }
        for i in 0..<updates {
            for (name, instance, screenCount) in scenarios {
                let offset = instance.app.output.utf8.count
                // A message for every screen: only the controller (and whoever mirrors it) redraws; blank screens
                // show no messages. The mirrors may draw in the same pass or at their own next frame callback: wait
                // for all of them.
                let id = try instance.send("update \(i)")
                var cpu = 0.0
                var screens = 0.0
                try waitUntil(timeout: 10, "\(Int(screenCount)) screens to draw update \(i)") {
                    (cpu, screens) = Self.renderPasses(in: String(instance.app.output.utf8.dropFirst(offset)) ?? "")
                    return screens >= screenCount
                }
                samples[name, default: []].append(cpu)
                screensDrawn[name, default: []].append(screens)
                if name == "controller-and-2-mirrors" {
                    var commits: [UInt64] = []
                    try waitUntil(timeout: 10, "commit lines of message #\(id)") {
                        let log = instance.app.output
                        commits = ["HEADLESS-1", "HEADLESS-2", "HEADLESS-3"].compactMap {
                            Self.commitTime(in: log, id: id, screen: $0)
                        }
                        return commits.count == 3
                    }
                    for mirror in commits.dropFirst() {
                        mirrorCommitLag.append((Double(mirror) - Double(commits[0])) / 1e6)
                    }
                }
            }
        }
        let compositorAfter = scenarios.map { Self.cpuMilliseconds(of: $0.1.sway.pid) }
        var results: [BenchmarkResult] = []
        for (index, (name, _, _)) in scenarios.enumerated() {
            let values = samples[name] ?? []
            results.append(
                BenchmarkResult(
                    benchmark: "mirror-cost", subject: name, metric: "cpu-per-update-median",
                    value: SampleStatistics.median(values), unit: "ms", samples: values.count))
            results.append(
                BenchmarkResult(
                    benchmark: "mirror-cost", subject: name, metric: "screens-drawn-per-update-median",
                    value: SampleStatistics.median(screensDrawn[name] ?? []), unit: "screens", samples: values.count))
            results.append(
                BenchmarkResult(
                    benchmark: "mirror-cost", subject: "\(name)/sway", metric: "compositor-cpu-per-update-mean",
                    value: (compositorAfter[index] - compositorBefore[index]) / Double(updates), unit: "ms",
                    samples: updates))
        }
        let median = { (name: String) in samples[name].map(SampleStatistics.median) ?? 0 }
        let base = median("controller-alone")
        if base > 0 {
            for name in ["controller-and-2-mirrors", "controller-and-2-mirrors-texture-copy", "controller-alone-egl"] {
                results.append(
                    BenchmarkResult(
                        benchmark: "mirror-cost", subject: "\(name)/controller-alone", metric: "ratio-of-medians",
                        value: median(name) / base, unit: "x", samples: updates))
            }
        }
        if !mirrorCommitLag.isEmpty {
            results.append(
                BenchmarkResult(
                    benchmark: "mirror-cost", subject: "controller-and-2-mirrors/mirror-vs-controller",
                    metric: "commit-lag-median", value: SampleStatistics.median(mirrorCommitLag), unit: "ms",
                    samples: mirrorCommitLag.count))
            results.append(
                BenchmarkResult(
                    benchmark: "mirror-cost", subject: "controller-and-2-mirrors/mirror-vs-controller",
                    metric: "commit-lag-max", value: mirrorCommitLag.max() ?? 0, unit: "ms",
                    samples: mirrorCommitLag.count))
        }
        for (name, instance) in [("controller-and-2-mirrors", mirrored), ("texture-copy", copied)] {
            results += try shownLatency(instance, subject: name)
        }
        results += try mirrorMemory(path: "shared")
        results += try mirrorMemory(path: "copy")
        return results
    }

    /// Message → shown per screen, last minute's p50 from `status` (`presented` where the compositor sends it; sway
    /// 1.7 headless sends none, so there it is the frame callback's arrival).
    func shownLatency(_ instance: Instance, subject: String) throws -> [BenchmarkResult] {
        let reply = try instance.client.exchange(line: #"{"method": "status"}"#)
        guard let object = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any],
            let screens = (object["result"] as? [String: Any])?["screens"] as? [[String: Any]]
        else { return [] }
        return screens.compactMap { screen in
            guard let name = screen["name"] as? String, let latency = screen["latency"] as? [String: Any],
                let minute = latency["lastMinute"] as? [String: Any], let p50 = minute["p50Ms"] as? Double
            else { return nil }
            let clock = latency["clock"] as? String ?? "?"
            return BenchmarkResult(
                benchmark: "mirror-cost", subject: "\(subject)/\(name)", metric: "message-to-shown-p50-\(clock)",
                value: p50, unit: "ms", samples: minute["messages"] as? Int ?? 0)
        }
    }

    /// RSS added per mirror: one output (the controller), then two mirrors plugged in, with the mirror path `path`;
    /// against one frame buffer of the mirror's output (width × height × 4).
    func mirrorMemory(path: String) throws -> [BenchmarkResult] {
        let sway = try HeadlessSway(outputs: 1, width: width, height: height)
        defer { sway.stop() }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ms-bench-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createDirectory(atPath: home + "/config/multiscreen", withIntermediateDirectories: true)
        try """
        [[rule]]
        match = { name = "HEADLESS-1" }
        role = "controller"

        [[rule]]
        match = { name = "HEADLESS-*" }
        role = "external"
        content = "mirror"
        """.write(toFile: home + "/config/multiscreen/config.toml", atomically: true, encoding: .utf8)
        let app = try ChildProcess(
            binary, ["run", "--log-level", "info", "--mirror", path],
            environment: sway.environment.merging([
                "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config",
                "MULTISCREEN_SOCKET": home + "/control.sock",
            ]) { $1 })
        defer { app.kill() }
        _ = try app.waitForLine(containing: "first frame committed on HEADLESS-1", timeout: 30)
        // One warm-up mirror, so that what every first mirror creates (the texture copy's texture, the black
        // frame, the second shared frame) is not charged to the ones measured.
        let warm = try sway.createOutput()
        _ = try app.waitForLine(containing: "first frame committed on \(warm)", timeout: 30)
        let base = try settledRSS(app)
        let added = 2
        for _ in 0..<added {
            let name = try sway.createOutput()
            _ = try app.waitForLine(containing: "first frame committed on \(name)", timeout: 30)
        }
        let grown = try settledRSS(app)
        let perMirror = Double(grown - base) / Double(added)
        let frameBytes = Double(width * height * 4)
        return [
            BenchmarkResult(
                benchmark: "mirror-memory", subject: path, metric: "rss-per-added-mirror",
                value: perMirror / 1_048_576, unit: "MiB", samples: added),
            BenchmarkResult(
                benchmark: "mirror-memory", subject: path, metric: "rss-per-added-mirror/frame-bytes",
                value: perMirror / frameBytes, unit: "x", samples: added),
        ]
    }
}
