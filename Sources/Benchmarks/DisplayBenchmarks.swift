import CompositorHarness
import Foundation
import Logging

/// The benchmarks of issue 2: start-up, hotplug latency, idle wakeups and memory per output, each against a
/// real headless sway and with a baseline measured the same way in the same run.
public struct DisplayBenchmarks {
    /// The `multiscreen` binary to measure (normally the running one).
    public var binary: String
    public var width: Int
    public var height: Int
    /// Where the benchmarks whose load stands for other machines (`remoteLoad`, `badInput`) run the kiosk and the
    /// load; nil: everything shares every CPU.
    public var cpus: CPUSplit?
    private let logger = Logger(label: "multiscreen.bench")

    public init(binary: String, width: Int = 1280, height: Int = 720, cpus: CPUSplit? = nil) {
        self.binary = binary
        self.width = width
        self.height = height
        self.cpus = cpus
    }

    // MARK: - Start-up

    /// Exec → first buffer committed on every output, for Multiscreen with each of `outputCounts` outputs and
    /// for `weston-simple-egl -f` on one output, runs interleaved so both see the same machine.
    ///
    /// For Multiscreen it also reports the median of each start-up phase the application logs (its "start-up
    /// phases" line), and `process`: exec → first buffers less those phases (loading, the runtime, the arguments).
    public func startup(outputCounts: [Int], runs: Int) throws -> [BenchmarkResult] {
        var samples: [String: [Double]] = [:]
        var phases: [Int: [String: [Double]]] = [:]
        var phaseOrder: [String] = []
        for run in 0..<runs {
            for count in outputCounts {
                let (ms, output) = try timeToFirstBuffers(
                    executable: binary, arguments: ["run", "--log-level", "notice"], outputs: count,
                    until: "start-up phases:")
                samples["multiscreen-\(count)-outputs", default: []].append(ms)
                let logged = Self.startupPhases(in: output)
                guard !logged.isEmpty else { throw HarnessError("no start-up phases in Multiscreen's log") }
                for (name, value) in logged + [("process", ms - logged.map(\.milliseconds).reduce(0, +))] {
                    phases[count, default: [:]][name, default: []].append(value)
                    if !phaseOrder.contains(name) { phaseOrder.append(name) }
                }
            }
            let reference = try timeToFirstBuffers(executable: "weston-simple-egl", arguments: ["-f"], outputs: 1).ms
            samples["weston-simple-egl-1-output", default: []].append(reference)
            logger.info("start-up run \(run + 1)/\(runs) done")
        }
        var results: [BenchmarkResult] = []
        for count in outputCounts {
            for name in phaseOrder {
                guard let values = phases[count]?[name] else { continue }
                results.append(
                    BenchmarkResult(
                        benchmark: "startup", subject: "multiscreen-\(count)-outputs",
                        metric: "phase-\(name.replacingOccurrences(of: " ", with: "-"))-median",
                        value: SampleStatistics.median(values), unit: "ms", samples: values.count))
            }
        }
        for (subject, values) in samples.sorted(by: { $0.key < $1.key }) {
            results.append(
                BenchmarkResult(
                    benchmark: "startup", subject: subject, metric: "median", value: SampleStatistics.median(values),
                    unit: "ms", samples: values.count))
            results.append(
                BenchmarkResult(
                    benchmark: "startup", subject: subject, metric: "max", value: values.max() ?? .nan, unit: "ms",
                    samples: values.count))
        }
        if let reference = samples["weston-simple-egl-1-output"].map(SampleStatistics.median) {
            for count in outputCounts {
                guard let ours = samples["multiscreen-\(count)-outputs"].map(SampleStatistics.median) else { continue }
                results.append(
                    BenchmarkResult(
                        benchmark: "startup", subject: "multiscreen-\(count)-outputs/weston-simple-egl-1-output",
                        metric: "ratio-of-medians", value: ours / reference, unit: "x", samples: runs))
            }
        }
        return results
    }

    /// The phases of a "start-up phases: sources 1.20 ms, connect 0.41 ms, …" line in `output`, in order.
    static func startupPhases(in output: String) -> [(name: String, milliseconds: Double)] {
        guard let line = output.split(separator: "\n").first(where: { $0.contains("start-up phases: ") }),
            let list = line.range(of: "start-up phases: ").map({ line[$0.upperBound...] })
        else { return [] }
        return list.split(separator: ",").compactMap { entry in
            // "first frames 31.02 ms" (the last one may be followed by " (2 screens)")
            let words = entry.split(separator: " ")
            guard let unit = words.firstIndex(of: "ms"), unit >= 2, let value = Double(words[unit - 1]) else {
                return nil
            }
            return (words[..<(unit - 1)].joined(separator: " "), value)
        }
    }

    /// Exec → the first buffer committed on every one of `outputs`, and the client's output; with `until`, also
    /// waits for a line containing it.
    private func timeToFirstBuffers(
        executable: String, arguments: [String], outputs: Int, until line: String? = nil
    ) throws -> (ms: Double, output: String) {
        let sway = try HeadlessSway(outputs: outputs, width: width, height: height)
        defer { sway.stop() }
        let start = WaylandDebugTrace.now()
        let client = try ChildProcess(
            executable, arguments, environment: sway.environment.merging(["WAYLAND_DEBUG": "1"]) { $1 })
        defer { client.kill() }
        var commits: [(surface: String, time: UInt32)] = []
        try waitUntil(timeout: 30, "\(executable) to commit a buffer on \(outputs) outputs") {
            commits = WaylandDebugTrace(text: client.output).firstBufferCommits
            return commits.count >= outputs
        }
        let last = commits.prefix(outputs).map { WaylandDebugTrace.milliseconds(from: start, to: $0.time) }.max()
        if let line { _ = try client.waitForLine(containing: line, timeout: 10) }
        return (last ?? .nan, client.output)
    }

    // MARK: - Hotplug

    /// `wl_output.done` of a new output → its first committed buffer, over `cycles` add/remove cycles of a nested
    /// sway's outputs. Also reports fd count and RSS before and after, and protocol errors (must be none).
    public func hotplug(cycles: Int) throws -> [BenchmarkResult] {
        let outer = try HeadlessSway(outputs: 1, width: 1920, height: 1080)
        defer { outer.stop() }
        let nested = try NestedSway(inside: outer, outputs: 1, width: width / 2, height: height / 2)
        defer { nested.stop() }
        let app = try ChildProcess(
            binary, ["run", "--log-level", "info"],
            environment: nested.environment.merging(["WAYLAND_DEBUG": "1"]) { $1 })
        defer { app.kill() }
        _ = try app.waitForLine(containing: "first frame committed on WL-1", timeout: 30)
        var latencies: [Double] = []
        // Where the time goes: done → our window's surface, surface → the compositor's first configure,
        // configure → the first frame committed (drawing it).
        let phaseNames = ["done-to-surface", "surface-to-configure", "configure-to-commit"]
        var phases: [[Double]] = Array(repeating: [], count: phaseNames.count)
        var fdsBefore = 0
        var rssBefore = 0
        var checkpoints: [BenchmarkResult] = []
        for cycle in 0...cycles {
            let mark = app.linesCaptured
            let name = try nested.createOutput()
            _ = try app.waitForLine(containing: "first frame committed on \(name)", timeout: 30)
            let segment = WaylandDebugTrace(text: app.output(after: mark))
            if cycle > 0,  // cycle 0 warms caches and lazily created resources up
                let output = segment.boundOutputs.last, let done = segment.firstDone(of: output),
                let surface = segment.createdSurfaces.last, let commit = segment.firstBufferCommit(of: surface)
            {
                latencies.append(WaylandDebugTrace.milliseconds(from: done, to: commit))
                if let created = segment.creation(of: surface), let configured = segment.firstConfigure(of: surface) {
                    phases[0].append(WaylandDebugTrace.milliseconds(from: done, to: created))
                    phases[1].append(WaylandDebugTrace.milliseconds(from: created, to: configured))
                    phases[2].append(WaylandDebugTrace.milliseconds(from: configured, to: commit))
                }
            }
            try nested.removeOutput(name)
            _ = try app.waitForLine(containing: "screen closed: \(name)", timeout: 30)
            if cycle == 0 {
                fdsBefore = app.openFileDescriptorCount
                rssBefore = app.residentSetBytes
            }
            if cycle > 0 && cycle % 50 == 0 {
                // The trend matters more than the end points: caches plateau, leaks keep climbing.
                checkpoints.append(
                    BenchmarkResult(
                        benchmark: "hotplug", subject: "multiscreen", metric: "rss-at-cycle-\(cycle)",
                        value: Double(app.residentSetBytes) / 1_048_576, unit: "MiB"))
                logger.info("hotplug cycle \(cycle)/\(cycles)")
            }
        }
        let errors = app.output.components(separatedBy: "protocol error").count - 1
        let alive = app.isRunning ? 1.0 : 0.0
        // The whole latency and each of its phases: median and p95.
        let distributions = [("done-to-commit", latencies)] + Array(zip(phaseNames, phases))
        let percentiles = distributions.flatMap { name, samples in
            [("median", 50.0), ("p95", 95.0)].map { metric, p in
                BenchmarkResult(
                    benchmark: "hotplug", subject: "multiscreen", metric: "\(name)-\(metric)",
                    value: SampleStatistics.percentile(samples, p), unit: "ms", samples: samples.count)
            }
        }
        return checkpoints + percentiles + [
            BenchmarkResult(
                benchmark: "hotplug", subject: "multiscreen", metric: "done-to-commit-max",
                value: latencies.max() ?? .nan, unit: "ms", samples: latencies.count),
            BenchmarkResult(
                benchmark: "hotplug", subject: "multiscreen", metric: "fds-before", value: Double(fdsBefore),
                unit: "fds"),
            BenchmarkResult(
                benchmark: "hotplug", subject: "multiscreen", metric: "fds-after",
                value: Double(app.openFileDescriptorCount), unit: "fds"),
            BenchmarkResult(
                benchmark: "hotplug", subject: "multiscreen", metric: "rss-before",
                value: Double(rssBefore) / 1_048_576,
                unit: "MiB"),
            BenchmarkResult(
                benchmark: "hotplug", subject: "multiscreen", metric: "rss-after",
                value: Double(app.residentSetBytes) / 1_048_576, unit: "MiB"),
            BenchmarkResult(
                benchmark: "hotplug", subject: "multiscreen", metric: "protocol-errors", value: Double(errors),
                unit: "count"),
            BenchmarkResult(
                benchmark: "hotplug", subject: "multiscreen", metric: "alive-after-cycles", value: alive, unit: "bool",
                samples: cycles),
        ]
    }

    // MARK: - Idle

    /// Context switches per second of an idle Multiscreen with two screens, next to `sleep` measured the same
    /// way (the instrument's own noise floor).
    public func idle(seconds: Double) throws -> [BenchmarkResult] {
        let sway = try HeadlessSway(outputs: 2, width: width, height: height)
        defer { sway.stop() }
        let app = try ChildProcess(binary, ["run", "--log-level", "info"], environment: sway.environment)
        defer { app.kill() }
        let control = try ChildProcess("sleep", ["3600"])
        defer { control.kill() }
        _ = try app.waitForLine(containing: "first frame committed on HEADLESS-2", timeout: 30)
        _ = try app.waitForLine(containing: "first frame committed on HEADLESS-1", timeout: 30)
        try app.waitUntilQuiet()  // the first frames' callbacks and presentation feedback
        let before = (try app.activity(), try control.activity())
        let expected = URL(fileURLWithPath: binary).resolvingSymlinksInPath().path
        guard before.0.executable == expected else {
            throw HarnessError("idle: the process watched runs \(before.0.executable), not \(expected)")
        }
        Thread.sleep(forTimeInterval: seconds)  // the observation window
        // Each throws, failing the benchmark, unless its process ran, as itself, through the whole window: a process
        // that exited makes no context switches, and must not be reported as idle.
        let switches = (try app.contextSwitches(since: before.0), try control.contextSwitches(since: before.1))
        return [
            BenchmarkResult(
                benchmark: "idle", subject: "multiscreen-2-outputs", metric: "wakeups-per-second",
                value: Double(switches.0) / seconds, unit: "1/s"),
            BenchmarkResult(
                benchmark: "idle", subject: "sleep", metric: "wakeups-per-second",
                value: Double(switches.1) / seconds, unit: "1/s"),
        ]
    }

    // MARK: - Memory

    /// RSS added per output, against that output's buffer size (width × height × 4 bytes).
    public func memory(addedOutputs: Int) throws -> [BenchmarkResult] {
        let sway = try HeadlessSway(outputs: 1, width: width, height: height)
        defer { sway.stop() }
        let app = try ChildProcess(
            binary, ["run", "--log-level", "info"], environment: sway.environment.merging(["WAYLAND_DEBUG": "1"]) { $1 }
        )
        defer { app.kill() }
        _ = try app.waitForLine(containing: "first frame committed on HEADLESS-1", timeout: 30)
        let base = try settledRSS(app)
        let buffersBefore = WaylandDebugTrace(text: app.output).shmBuffersCreated
        for _ in 0..<addedOutputs {
            let name = try sway.createOutput()
            _ = try app.waitForLine(containing: "first frame committed on \(name)", timeout: 30)
        }
        let grown = try settledRSS(app)
        let buffersAfter = WaylandDebugTrace(text: app.output).shmBuffersCreated
        let perOutput = Double(grown - base) / Double(addedOutputs)
        let bufferBytes = Double(width * height * 4)
        return [
            BenchmarkResult(
                benchmark: "memory", subject: "multiscreen", metric: "rss-per-added-output",
                value: perOutput / 1_048_576, unit: "MiB", samples: addedOutputs),
            BenchmarkResult(
                benchmark: "memory", subject: "\(width)x\(height)-buffer", metric: "buffer-bytes",
                value: bufferBytes / 1_048_576, unit: "MiB"),
            BenchmarkResult(
                benchmark: "memory", subject: "multiscreen", metric: "rss-per-output/buffer-bytes",
                value: perOutput / bufferBytes, unit: "x", samples: addedOutputs),
            // Mesa's software path keeps the shm buffers it attaches plus llvmpipe's own render target (one more
            // buffer of the same size, invisible in the protocol): that is the output's buffer memory.
            BenchmarkResult(
                benchmark: "memory", subject: "multiscreen", metric: "rss-per-output/swap-chain-bytes",
                value: perOutput / (bufferBytes * (Double(buffersAfter - buffersBefore) / Double(addedOutputs) + 1)),
                unit: "x", samples: addedOutputs),
            BenchmarkResult(
                benchmark: "memory", subject: "mesa-swrast", metric: "shm-buffers-per-added-output",
                value: Double(buffersAfter - buffersBefore) / Double(addedOutputs), unit: "buffers",
                samples: addedOutputs),
        ]
    }

    /// RSS once it stops changing (Mesa allocates the swap chain over the first frames).
    func settledRSS(_ app: ChildProcess) throws -> Int {
        var last = app.residentSetBytes
        var stableSince = Date()
        try waitUntil(timeout: 10, "RSS to settle") {
            Thread.sleep(forTimeInterval: 0.1)
            let now = app.residentSetBytes
            if now != last {
                last = now
                stableSince = Date()
            }
            return Date().timeIntervalSince(stableSince) > 0.5
        }
        return last
    }
}
