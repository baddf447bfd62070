import CompositorHarness
import Foundation
import Messaging
import Remote

/// The benchmarks of issue 15: a message from a page on the controller to a page on an external screen, next to
/// the same message on a native external screen (same message, same run, same stamp); what a web screen costs.
extension DisplayBenchmarks {
    /// The controller page: `count` messages through the bridge, `interval` ms apart, once loaded.
    static func probePage(count: Int, interval: Int) -> String {
        """
        <!doctype html><html><head><meta charset="utf-8"><style>body{background:#fff;font:24px sans-serif}</style>
        </head><body><div id="n">probe</div><script>
        window.addEventListener('load', function () {
          var i = 0;
          var timer = setInterval(function () {
            if (i >= \(count)) { clearInterval(timer); return; }
            window.webkit.messageHandlers.multiscreen.postMessage({ method: 'send', params: { text: 'probe ' + i } });
            document.getElementById('n').textContent = 'sent ' + (++i);
          }, \(interval));
        });
        </script></body></html>
        """
    }

    /// The external page: the starter kit's message list.
    static let listPage = """
        <!doctype html><html><head><meta charset="utf-8"><style>body{background:#fff;font:32px sans-serif}</style>
        </head><body><ul id="log"></ul><script>
        function receiveMessage(text) {
          var item = document.createElement('li');
          item.textContent = text;
          var log = document.getElementById('log');
          log.prepend(item);
          while (log.children.length > 6) { log.lastElementChild.remove(); }
        }
        </script></body></html>
        """

    /// Page → page message latency next to the native text path, start → first web frame, CPU per web frame, RSS
    /// per view, RSS over `cycles` open/close cycles of a view, and idle wakeups with and without a static page
    /// (`idleSeconds` each).
    public func web(messages: Int, cycles: Int, idleSeconds: Double = 20) throws -> [BenchmarkResult] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ms-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let probe = directory.appendingPathComponent("probe.html")
        let list = directory.appendingPathComponent("list.html")
        try Self.probePage(count: messages, interval: 150).write(to: probe, atomically: true, encoding: .utf8)
        try Self.listPage.write(to: list, atomically: true, encoding: .utf8)
        // HEADLESS-2 shows the list page (opened once the process without pages was watched idle), HEADLESS-3 the
        // native messages: the same message reaches both.
        let instance = try Instance(binary: binary, outputs: 3, width: width, height: height, config: "")
        defer { instance.stop() }
        let app = instance.app
        let client = instance.client
        func status() throws -> [String: Any] {
            let reply = try client.exchange(line: #"{"method": "status"}"#)
            let object = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
            guard let result = object?["result"] as? [String: Any] else { throw HarnessError("status: \(reply)") }
            return result
        }
        func screen(_ name: String) throws -> [String: Any] {
            let screens = try status()["screens"] as? [[String: Any]] ?? []
            guard let found = screens.first(where: { $0["name"] as? String == name }) else {
                throw HarnessError("no \(name) in status")
            }
            return found
        }
        func webProcesses() -> [pid_t] {
            let children =
                (try? String(contentsOfFile: "/proc/\(app.pid)/task/\(app.pid)/children", encoding: .utf8)) ?? ""
            return children.split(separator: " ").compactMap { pid_t($0) }.filter { child in
                ((try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8)) ?? "").hasPrefix("WPEWebProcess")
            }
        }
        func rss(_ pid: pid_t) -> Double {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                let kb = Double(line.split(separator: " ", omittingEmptySubsequences: true)[1])
            else { return 0 }
            return kb / 1024
        }
        func firstFrameMilliseconds(of url: String, occurrence: Int) throws -> Double {
            var value: Double?
            try waitUntil(timeout: 60, "the first frame of \(url)") {
                let lines = app.output.split(separator: "\n").filter {
                    $0.contains("web view: first frame of \(url) ")
                }
                guard lines.count >= occurrence else { return false }
                let words = lines[occurrence - 1].split(separator: " ")
                value = words.firstIndex(of: "ms").flatMap { Double(words[$0 - 1]) }
                return true
            }
            return value ?? .nan
        }

        var results: [BenchmarkResult] = []
        // Idle: the process with no page (the baseline, which makes none), then with the list page loaded.
        if idleSeconds > 0 {
            try app.waitUntilQuiet(for: 0.5, timeout: 30)
            results += try idleWakeups(of: app, seconds: idleSeconds, subject: "multiscreen, no page")
        }
        _ = try client.exchange(
            line: MessageCodec.encodeRequest(.openWeb(screen: "HEADLESS-2", url: list.absoluteString)))
        let listStart = try firstFrameMilliseconds(of: list.absoluteString, occurrence: 1)
        try app.waitUntilQuiet(for: 0.5, timeout: 30)
        let uiBefore = Double(app.residentSetBytes) / 1_048_576
        if idleSeconds > 0 {
            results += try idleWakeups(of: app, seconds: idleSeconds, subject: "multiscreen, a loaded static page")
        }

        // Page → page, next to page → native: the probe page on the controller sends `messages` messages.
        let cpuBefore = ([app.pid] + webProcesses()).map(Self.cpuSeconds).reduce(0, +)
        let framesBefore = (try screen("HEADLESS-2")["web"] as? [String: Any])?["framesUploaded"] as? Int ?? 0
        _ = try client.exchange(
            line: MessageCodec.encodeRequest(.openWeb(screen: "HEADLESS-1", url: probe.absoluteString)))
        let probeStart = try firstFrameMilliseconds(of: probe.absoluteString, occurrence: 1)
        var web: [String: Any] = [:]
        try waitUntil(timeout: 60 + Double(messages) * 0.5, "\(messages) messages shown by the list page") {
            web = (try screen("HEADLESS-2")["web"] as? [String: Any]) ?? [:]
            return ((web["latency"] as? [String: Any])?["messages"] as? Int ?? 0) >= messages
        }
        try app.waitUntilQuiet(for: 0.5, timeout: 30)
        let cpu = ([app.pid] + webProcesses()).map(Self.cpuSeconds).reduce(0, +) - cpuBefore
        let frames =
            ((try screen("HEADLESS-2")["web"] as? [String: Any])?["framesUploaded"] as? Int ?? 0) - framesBefore
        let native = try screen("HEADLESS-3")["latency"] as? [String: Any] ?? [:]
        let nativeMinute = native["lastMinute"] as? [String: Any] ?? [:]
        let webLatency = web["latency"] as? [String: Any] ?? [:]
        let milliHertz = try instance.sway.outputs().first { $0.name == "HEADLESS-2" }?.mode.refresh ?? 0
        let refresh = milliHertz > 0 ? 1_000_000.0 / Double(milliHertz) : .nan
        let nativeCount = nativeMinute["messages"] as? Int ?? 0
        for (subject, values, count) in [
            ("page-to-page", webLatency, messages), ("page-to-native-text", nativeMinute, nativeCount),
        ] {
            for key in ["p50Ms", "p99Ms"] {
                results.append(
                    BenchmarkResult(
                        benchmark: "web-message-latency", subject: subject,
                        metric: "enqueue-to-frame-done-\(key.dropLast(2))", value: values[key] as? Double ?? .nan,
                        unit: "ms", samples: count))
            }
        }
        // Where the page path's time goes (``PageMessageTrace`` in the app): p50, p99, and the median over the
        // slowest tenth of the messages, per stage.
        let stages = webLatency["stages"] as? [String: Any] ?? [:]
        for name in [
            "bus", "delivery", "script", "webkitFrame", "exportWaitedAtMost", "waitForDraw", "draw", "present",
        ] {
            let stage = stages[name] as? [String: Any] ?? [:]
            for (key, metric) in [("p50Ms", "p50"), ("p99Ms", "p99"), ("slowestTenthMedianMs", "slowest-tenth-median")]
            {
                results.append(
                    BenchmarkResult(
                        benchmark: "web-message-split", subject: "page-to-page \(name)", metric: metric,
                        value: stage[key] as? Double ?? .nan, unit: "ms", samples: messages))
            }
        }
        let webP99 = webLatency["p99Ms"] as? Double ?? .nan
        let nativeP99 = nativeMinute["p99Ms"] as? Double ?? .nan
        results.append(
            BenchmarkResult(
                benchmark: "web-message-latency", subject: "page-to-page minus native",
                metric: "p99-difference-in-refresh-periods", value: (webP99 - nativeP99) / refresh, unit: "frames",
                samples: messages))
        results.append(
            BenchmarkResult(
                benchmark: "web-cost", subject: "2 pages + 1 native screen \(width)x\(height)",
                metric: "cpu-per-message-multiscreen-and-web-processes",
                value: frames > 0 ? cpu * 1000 / Double(frames) : .nan, unit: "ms", samples: frames))
        results.append(
            BenchmarkResult(
                benchmark: "web-cost", subject: "list page", metric: "open-to-first-frame", value: listStart,
                unit: "ms"))
        results.append(
            BenchmarkResult(
                benchmark: "web-cost", subject: "probe page (second view)", metric: "open-to-first-frame",
                value: probeStart, unit: "ms"))
        let processes = webProcesses()
        results.append(
            BenchmarkResult(
                benchmark: "web-cost", subject: "web processes", metric: "rss-per-view",
                value: processes.map(rss).reduce(0, +) / Double(max(processes.count, 1)), unit: "MiB",
                samples: processes.count))
        results.append(
            BenchmarkResult(
                benchmark: "web-cost", subject: "multiscreen with 1 view (ui process)", metric: "rss",
                value: uiBefore, unit: "MiB"))

        // Open/close cycles of a third view: the UI process's RSS must come back.
        guard cycles > 0 else { return results }
        func cycle(_ index: Int) throws {
            _ = try client.exchange(
                line: MessageCodec.encodeRequest(.openWeb(screen: "HEADLESS-3", url: list.absoluteString)))
            _ = try firstFrameMilliseconds(of: list.absoluteString, occurrence: index + 1)
            _ = try client.exchange(line: MessageCodec.encodeRequest(.closeWeb(screen: "HEADLESS-3")))
            try waitUntil(timeout: 30, "view \(index) closed") {
                app.output.components(separatedBy: "web view closed: \(list.absoluteString)").count - 1 >= index
            }
        }
        try cycle(1)  // warm-up: the first open of a third view allocates what later ones reuse
        try app.waitUntilQuiet(for: 0.5, timeout: 30)
        let rssBefore = Double(app.residentSetBytes) / 1_048_576
        for index in 2...(cycles + 1) { try cycle(index) }
        try app.waitUntilQuiet(for: 0.5, timeout: 30)
        let rssAfter = Double(app.residentSetBytes) / 1_048_576
        results.append(
            BenchmarkResult(
                benchmark: "web-cost", subject: "\(cycles) open/close cycles", metric: "multiscreen-rss-growth",
                value: rssAfter - rssBefore, unit: "MiB", samples: cycles))
        results.append(
            BenchmarkResult(
                benchmark: "web-cost", subject: "after \(cycles) cycles", metric: "web-processes-left",
                value: Double(webProcesses().count), unit: "processes"))
        return results
    }

    /// Context switches per second of `app` over `seconds`, in all, on the display thread (the main thread) and per
    /// thread name (WebKit names its threads). Threads that start or end during the window are counted for the
    /// part they were seen, and the number that ended is reported (their last switches are lost).
    func idleWakeups(of app: ChildProcess, seconds: Double, subject: String) throws -> [BenchmarkResult] {
        func names() -> [Int32: String] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(app.pid)/task")) ?? []
            var result: [Int32: String] = [:]
            for task in tasks {
                guard let id = Int32(task) else { continue }
                let name = (try? String(contentsOfFile: "/proc/\(app.pid)/task/\(task)/comm", encoding: .utf8)) ?? "?"
                result[id] = name.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return result
        }
        let threadNames = names()
        let start = try app.activity()
        Thread.sleep(forTimeInterval: seconds)  // the observation window itself
        let end = try app.activity()
        let laterNames = names()
        var byName: [String: Int] = [:]
        for (id, count) in end.contextSwitchesByThread {
            let name = threadNames[id] ?? laterNames[id] ?? "?"
            byName[name, default: 0] += count - (start.contextSwitchesByThread[id] ?? 0)
        }
        let ended = Set(start.contextSwitchesByThread.keys).subtracting(end.contextSwitchesByThread.keys).count
        let display =
            (end.contextSwitchesByThread[app.pid] ?? 0) - (start.contextSwitchesByThread[app.pid] ?? 0)
        var results = [
            BenchmarkResult(
                benchmark: "web-idle", subject: subject, metric: "wakeups-per-second",
                value: Double(byName.values.reduce(0, +)) / seconds, unit: "1/s"),
            BenchmarkResult(
                benchmark: "web-idle", subject: "\(subject), display thread", metric: "wakeups-per-second",
                value: Double(display) / seconds, unit: "1/s"),
            BenchmarkResult(
                benchmark: "web-idle", subject: "\(subject), threads ended during the window", metric: "threads",
                value: Double(ended), unit: "threads"),
        ]
        for (name, count) in byName.sorted(by: { $0.key < $1.key }) where count > 0 {
            results.append(
                BenchmarkResult(
                    benchmark: "web-idle", subject: "\(subject), threads named \(name)", metric: "wakeups-per-second",
                    value: Double(count) / seconds, unit: "1/s"))
        }
        return results
    }
}
