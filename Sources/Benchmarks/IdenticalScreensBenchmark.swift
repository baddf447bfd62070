import CompositorHarness
import Foundation

/// Issue 28, item 1: a message to every external screen of a 16-output wall against the same message on 2 outputs,
/// and against the 16 outputs drawing a frame each (`--mirror copy` turns shared frames off: the path before). Every
/// instance has one background for all external screens (`[theme] background`), as a wall has: by default each
/// screen has its own colour, and its picture is then its own.
extension DisplayBenchmarks {
    /// Interleaved update by update: CPU of the render passes each message causes (llvmpipe's threads included), the
    /// compositor's CPU, message → frame done per external screen (p50 and p99 of the last minute, from `status`; the
    /// frame callback on sway 1.7 headless, which sends no `presented`), and resident memory per added identical
    /// screen against one frame of it.
    public func identicalScreens(outputs: Int, updates: Int) throws -> [BenchmarkResult] {
        let few = 2
        let scenarios: [(name: String, outputs: Int, arguments: [String])] = [
            ("\(few)-outputs", few, []), ("\(outputs)-outputs", outputs, []),
            ("\(outputs)-outputs-own-frames", outputs, ["--mirror", "copy"]),
        ]
        var instances: [Instance] = []
        defer { for instance in instances { instance.stop() } }
        for scenario in scenarios {
            instances.append(
                try Instance(
                    binary: binary, outputs: scenario.outputs, width: width, height: height,
                    config: "[theme]\nbackground = \"#102030\"\n", arguments: scenario.arguments))
        }
        var cpu: [String: [Double]] = [:]
        /// Message → committed on each external screen (Multiscreen's own log): the part before the compositor's.
        var committed: [String: [Double]] = [:]
        let compositorBefore = instances.map { Self.cpuMilliseconds(of: $0.sway.pid) }
        for i in 0..<updates {
            for (scenario, instance) in zip(scenarios, instances) {
                let offset = instance.app.output.utf8.count
                let id = try instance.send("Update \(i): the next tour starts at the main door")
                let externals = (2...scenario.outputs).map { "HEADLESS-\($0)" }
                // Every screen committed it (the controller lists it too): the passes that did are its cost.
                var passes = (cpu: 0.0, screens: 0.0)
                try waitUntil(timeout: 20, "message #\(id) on every screen of \(scenario.name)") {
                    let log = instance.app.output
                    passes = Self.renderPasses(in: String(log.utf8.dropFirst(offset)) ?? "")
                    return passes.screens >= Double(scenario.outputs)
                        && externals.allSatisfy { Self.commitTime(in: log, id: id, screen: $0) != nil }
                }
                cpu[scenario.name, default: []].append(passes.cpu)
                let log = instance.app.output
                for screen in externals {
                    if let split = Self.latencies(in: log, id: id, screen: screen) {
                        committed[scenario.name, default: []].append(split.enqueue)
                    }
                }
            }
        }
        let compositorAfter = instances.map { Self.cpuMilliseconds(of: $0.sway.pid) }
        var results: [BenchmarkResult] = []
        let milliHertz = try instances[0].sway.outputs().first { $0.name == "HEADLESS-2" }?.mode.refresh ?? 0
        guard milliHertz > 0 else { throw HarnessError("HEADLESS-2 reports no refresh rate") }
        let refresh = 1_000_000.0 / Double(milliHertz)
        for (index, (scenario, instance)) in zip(scenarios, instances).enumerated() {
            let values = cpu[scenario.name] ?? []
            results.append(
                BenchmarkResult(
                    benchmark: "identical-screens", subject: scenario.name, metric: "cpu-per-update-median",
                    value: SampleStatistics.median(values), unit: "ms", samples: values.count))
            results.append(
                BenchmarkResult(
                    benchmark: "identical-screens", subject: "\(scenario.name)/sway",
                    metric: "compositor-cpu-per-update-mean",
                    value: (compositorAfter[index] - compositorBefore[index]) / Double(updates), unit: "ms",
                    samples: updates))
            let commits = committed[scenario.name] ?? []
            for (metric, value) in [
                ("p50", SampleStatistics.median(commits)), ("p99", SampleStatistics.percentile(commits, 99)),
            ] {
                results.append(
                    BenchmarkResult(
                        benchmark: "identical-screens", subject: scenario.name, metric: "message-to-commit-\(metric)",
                        value: value, unit: "ms", samples: commits.count))
            }
            let shown = try shownPercentiles(instance, externals: scenario.outputs - 1)
            for (metric, value) in [("p50", shown.p50), ("p99", shown.p99)] {
                results.append(
                    BenchmarkResult(
                        benchmark: "identical-screens", subject: scenario.name,
                        metric: "message-to-shown-\(metric)-worst-screen-\(shown.clock)", value: value, unit: "ms",
                        samples: shown.messages))
            }
            results.append(
                BenchmarkResult(
                    benchmark: "identical-screens", subject: scenario.name,
                    metric: "message-to-shown-p99-in-refresh-periods", value: shown.p99 / refresh, unit: "periods",
                    samples: shown.messages))
        }
        let median = { (name: String) in SampleStatistics.median(cpu[name] ?? []) }
        let base = median("\(few)-outputs")
        if base > 0 {
            for name in ["\(outputs)-outputs", "\(outputs)-outputs-own-frames"] {
                results.append(
                    BenchmarkResult(
                        benchmark: "identical-screens", subject: "\(name)/\(few)-outputs",
                        metric: "cpu-ratio-of-medians",
                        value: median(name) / base, unit: "x", samples: updates))
            }
        }
        // Memory: what each screen beyond the first external costs, once every instance drew the same messages.
        let rss = try instances.map { try settledRSS($0.app) }
        let frameBytes = Double(width * height * 4)
        for (index, scenario) in scenarios.enumerated().dropFirst() {
            let perScreen = Double(rss[index] - rss[0]) / Double(scenario.outputs - few)
            results.append(
                BenchmarkResult(
                    benchmark: "identical-screens", subject: scenario.name, metric: "rss-per-added-screen",
                    value: perScreen / 1_048_576, unit: "MiB", samples: 1))
            results.append(
                BenchmarkResult(
                    benchmark: "identical-screens", subject: scenario.name, metric: "rss-per-added-screen/frame-bytes",
                    value: perScreen / frameBytes, unit: "x", samples: 1))
        }
        return results
    }

    /// The worst external screen's last-minute message → shown p50 and p99 from `status`, and the clock they are on.
    private func shownPercentiles(_ instance: Instance, externals: Int) throws -> (
        p50: Double, p99: Double, messages: Int, clock: String
    ) {
        let reply = try instance.client.exchange(line: #"{"method": "status"}"#)
        guard let object = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any],
            let screens = (object["result"] as? [String: Any])?["screens"] as? [[String: Any]]
        else { throw HarnessError("status without screens: \(reply.prefix(200))") }
        var worst = (p50: 0.0, p99: 0.0, messages: 0, clock: "?")
        var counted = 0
        for screen in screens where screen["name"] as? String != "HEADLESS-1" {
            guard let latency = screen["latency"] as? [String: Any],
                let minute = latency["lastMinute"] as? [String: Any], let p50 = minute["p50Ms"] as? Double,
                let p99 = minute["p99Ms"] as? Double
            else { continue }
            counted += 1
            worst.p50 = max(worst.p50, p50)
            worst.p99 = max(worst.p99, p99)
            worst.messages += minute["messages"] as? Int ?? 0
            worst.clock = latency["clock"] as? String ?? "?"
        }
        guard counted == externals else {
            throw HarnessError("latency of \(counted) of \(externals) screens in status")
        }
        return worst
    }
}
