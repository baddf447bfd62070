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

        init(binary: String, outputs: Int, width: Int, height: Int, config: String = "") throws {
            sway = try HeadlessSway(outputs: outputs, width: width, height: height)
            home = FileManager.default.temporaryDirectory.appendingPathComponent("ms-bench-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(
                atPath: home + "/config/multiscreen", withIntermediateDirectories: true)
            try config.write(toFile: home + "/config/multiscreen/config.toml", atomically: true, encoding: .utf8)
            app = try ChildProcess(
                binary, ["run", "--log-level", "debug"],
                environment: sway.environment.merging([
                    "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config",
                    "MULTISCREEN_SOCKET": home + "/control.sock",
                ]) { $1 })
            for index in 1...outputs {
                _ = try app.waitForLine(containing: "first frame committed on HEADLESS-\(index)", timeout: 30)
            }
            try app.waitUntilQuiet()  // the first frames' callbacks and presentation feedback
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

    /// `latency: message #7 on HEADLESS-2 committed at 123456789 ns, enqueue→commit 3.21 ms, drain→commit 2.80 ms`: the
    /// last two numbers.
    static func latencies(in log: String, id: Int, screen: String) -> (enqueue: Double, drain: Double)? {
        guard
            let line = log.split(separator: "\n").first(where: { $0.contains("latency: message #\(id) on \(screen) ") })
        else { return nil }
        let numbers = line.split(separator: " ").compactMap { Double($0) }
        guard numbers.count >= 2 else { return nil }
        return (numbers[numbers.count - 2], numbers[numbers.count - 1])
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

    /// CPU (+ llvmpipe "GPU") time of the render pass after a controller change: the controller alone (the two
    /// externals blank) against the controller with two mirrors, interleaved in one run.
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
        var samples: [String: [Double]] = [:]
        var screensDrawn: [String: [Double]] = [:]
        for i in 0..<updates {
            for (name, instance, screenCount) in [
                ("controller-alone", alone, 1.0), ("controller-and-2-mirrors", mirrored, 3.0),
            ] {
                let offset = instance.app.output.utf8.count
                // A message for the controller's own log: only the controller (and whoever mirrors it) redraws.
                // The mirrors may draw in the same pass or at their own next frame callback: wait for all of them.
                _ = try instance.send("update \(i)", screen: "HEADLESS-1")
                var cpu = 0.0
                var screens = 0.0
                try waitUntil(timeout: 10, "\(Int(screenCount)) screens to draw update \(i)") {
                    (cpu, screens) = Self.renderPasses(in: String(instance.app.output.utf8.dropFirst(offset)) ?? "")
                    return screens >= screenCount
                }
                samples[name, default: []].append(cpu)
                screensDrawn[name, default: []].append(screens)
            }
        }
        var results: [BenchmarkResult] = []
        for (name, values) in samples.sorted(by: { $0.key < $1.key }) {
            results.append(
                BenchmarkResult(
                    benchmark: "mirror-cost", subject: name, metric: "cpu-per-update-median",
                    value: SampleStatistics.median(values), unit: "ms", samples: values.count))
            results.append(
                BenchmarkResult(
                    benchmark: "mirror-cost", subject: name, metric: "screens-drawn-per-update-median",
                    value: SampleStatistics.median(screensDrawn[name] ?? []), unit: "screens", samples: values.count))
        }
        if let a = samples["controller-alone"].map(SampleStatistics.median),
            let b = samples["controller-and-2-mirrors"].map(SampleStatistics.median), a > 0
        {
            results.append(
                BenchmarkResult(
                    benchmark: "mirror-cost", subject: "controller-and-2-mirrors/controller-alone",
                    metric: "ratio-of-medians", value: b / a, unit: "x", samples: updates))
        }
        return results
    }
}
