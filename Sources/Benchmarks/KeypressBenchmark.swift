import CompositorHarness
import Foundation

/// Keypress → pixels committed on every external screen, timed from outside Multiscreen: from the moment the
/// injector (`wtype`) sends the Return key to the compositor, to the moment Multiscreen sends the commit of the
/// external screen's next buffer.
///
/// Both ends are libwayland's `WAYLAND_DEBUG` stamps (`CLOCK_REALTIME`, one clock for every process here): the
/// injector's `zwp_virtual_keyboard_v1.key` request and Multiscreen's `wl_surface.commit` request. Nothing comes
/// from Multiscreen's own accounting, so the compositor's routing, xkb, the wake-up of the display thread and the
/// drawing are all inside the figure. It ends at the commit, not at presentation: sway 1.7 headless never sends
/// `presented` (message → presented is `multiscreen latency`, on weston). Both processes pay the trace's logging
/// cost.
extension DisplayBenchmarks {
    public func keypressLatency(keypresses: Int) throws -> [BenchmarkResult] {
        let sway = try HeadlessSway(outputs: 3, width: width, height: height)
        defer { sway.stop() }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ms-bench-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let app = try ChildProcess(
            binary, ["run", "--log-level", "debug"],
            environment: sway.environment.merging([
                "WAYLAND_DEBUG": "1", "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config",
                "MULTISCREEN_SOCKET": home + "/control.sock",
            ]) { $1 })
        defer { app.kill() }
        for index in 1...3 {
            _ = try app.waitForLine(containing: "first frame committed on HEADLESS-\(index)", timeout: 30)
        }
        try app.waitUntilQuiet()

        // The seat has a keyboard only while a virtual keyboard exists: one stays alive for the whole run.
        let holder = try ChildProcess("wtype", ["-s", "600000"], environment: sway.environment)
        defer { holder.kill() }
        _ = try app.waitForLine(containing: "seat: keyboard", timeout: 10)

        let externals = ["HEADLESS-2", "HEADLESS-3"]
        var latencies: [Double] = []
        var selfReported: [Double] = []  // Multiscreen's own enqueue→commit for the same messages, for comparison
        var missed = 0
        for i in 0..<keypresses {
            let typed = try ChildProcess("wtype", ["probe \(i)"], environment: sway.environment)
            _ = try typed.waitForExit(timeout: 10)
            try app.waitUntilQuiet()  // the draft is drawn on the controller: the externals are idle again
            let enter = try ChildProcess(
                "wtype", ["-k", "Return"], environment: sway.environment.merging(["WAYLAND_DEBUG": "1"]) { $1 })
            _ = try enter.waitForExit(timeout: 10)
            guard let injected = KeypressTrace.lastKeyPress(in: WaylandDebugTrace(text: enter.standardError)) else {
                throw HarnessError("wtype's trace shows no key press:\n\(enter.standardError.suffix(2000))")
            }
            var commits: [String: UInt32] = [:]
            try waitUntil(timeout: 10, "probe \(i) committed on \(externals.joined(separator: " and "))") {
                commits = KeypressTrace.firstCommits(
                    after: injected, on: externals, in: WaylandDebugTrace(text: app.standardError))
                return commits.count == externals.count
            }
            let sent = try app.waitForLine(containing: ": probe \(i)", timeout: 10)
            guard let range = sent.range(of: "message #"),
                let id = Int(sent[range.upperBound...].prefix { $0.isNumber })
            else { throw HarnessError("no message id in \(sent)") }
            for screen in externals {
                let milliseconds = WaylandDebugTrace.milliseconds(from: injected, to: commits[screen]!)
                // A commit stamped a wrap-around away is not this keypress's.
                if milliseconds < 10_000 { latencies.append(milliseconds) } else { missed += 1 }
                var own: (enqueue: Double, drain: Double)?
                try waitUntil(timeout: 10, "message #\(id)'s latency line on \(screen)") {
                    own = Self.latencies(in: app.output, id: id, screen: screen)
                    return own != nil
                }
                selfReported.append(own!.enqueue)
            }
            try app.waitUntilQuiet()
        }
        guard !latencies.isEmpty else { throw HarnessError("no keypress sample was measured") }
        // The refresh interval, as the compositor reports the output's mode (mHz), not assumed.
        let milliHertz = try sway.outputs().first { $0.name == externals[0] }?.mode.refresh ?? 0
        guard milliHertz > 0 else { throw HarnessError("\(externals[0]) reports no refresh rate") }
        let refresh = 1_000_000.0 / Double(milliHertz)
        let p95 = SampleStatistics.percentile(latencies, 95)
        return [
            BenchmarkResult(
                benchmark: "keypress-latency", subject: "injected-to-commit", metric: "median",
                value: SampleStatistics.median(latencies), unit: "ms", samples: latencies.count),
            BenchmarkResult(
                benchmark: "keypress-latency", subject: "injected-to-commit", metric: "p95", value: p95, unit: "ms",
                samples: latencies.count),
            BenchmarkResult(
                benchmark: "keypress-latency", subject: "injected-to-commit/refresh-interval", metric: "p95-in-frames",
                value: p95 / refresh, unit: "frames", samples: latencies.count),
            BenchmarkResult(
                benchmark: "keypress-latency", subject: "self-reported-enqueue-to-commit", metric: "median",
                value: SampleStatistics.median(selfReported), unit: "ms", samples: selfReported.count),
            BenchmarkResult(
                benchmark: "keypress-latency", subject: "self-reported-enqueue-to-commit", metric: "p95",
                value: SampleStatistics.percentile(selfReported, 95), unit: "ms", samples: selfReported.count),
            BenchmarkResult(
                benchmark: "keypress-latency", subject: "samples-not-matched", metric: "count", value: Double(missed),
                unit: "samples", samples: keypresses * externals.count),
        ]
    }
}

/// Reads the two traces of one keypress: the injector's and Multiscreen's.
enum KeypressTrace {
    /// When the injector sent its last key press (`zwp_virtual_keyboard_v1.key(time, key, 1)`): for
    /// `wtype -k Return`, the Return key.
    static func lastKeyPress(in trace: WaylandDebugTrace) -> UInt32? {
        trace.lines.last { line in
            line.isRequest && line.object.hasPrefix("zwp_virtual_keyboard_v1@") && line.message == "key"
                && line.arguments.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) == "1"
        }?.time
    }

    /// For each named output, the time of the first buffer commit after `time` of the surface shown on it.
    ///
    /// Multiscreen's trace names its outputs through `zxdg_output_v1.name`, and places each surface on an output by
    /// asking for it fullscreen there (`wl_surface` → `xdg_surface` → `xdg_toplevel.set_fullscreen(wl_output)`;
    /// sway 1.7 sends no `wl_surface.enter` for them); a buffer commit is a `commit` after an `attach` of a buffer
    /// on the same surface.
    static func firstCommits(after time: UInt32, on outputs: [String], in trace: WaylandDebugTrace) -> [String: UInt32]
    {
        var outputOfXDGOutput: [String: String] = [:]  // zxdg_output_v1@N → wl_output@M
        var nameOfOutput: [String: String] = [:]  // wl_output@M → HEADLESS-2
        var surfaceOfXDGSurface: [String: String] = [:]  // xdg_surface@A → wl_surface@S
        var surfaceOfToplevel: [String: String] = [:]  // xdg_toplevel@T → wl_surface@S
        var outputOfSurface: [String: String] = [:]  // wl_surface@S → wl_output@M
        var attached: Set<String> = []
        var commits: [String: UInt32] = [:]
        for line in trace.lines {
            switch (line.isRequest, line.message) {
            case (true, "get_xdg_output"):
                let ids = objectReferences(in: line.arguments)
                if ids.count == 2 { outputOfXDGOutput[ids[0]] = ids[1] }
            case (false, "name") where line.object.hasPrefix("zxdg_output_v1@"):
                if let output = outputOfXDGOutput[line.object] {
                    nameOfOutput[output] = line.arguments.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
                }
            case (true, "get_xdg_surface"):
                let ids = objectReferences(in: line.arguments)
                if ids.count == 2 { surfaceOfXDGSurface[ids[0]] = ids[1] }
            case (true, "get_toplevel"):
                if let toplevel = objectReferences(in: line.arguments).first {
                    surfaceOfToplevel[toplevel] = surfaceOfXDGSurface[line.object]
                }
            case (true, "set_fullscreen"):
                if let surface = surfaceOfToplevel[line.object] {
                    outputOfSurface[surface] = objectReferences(in: line.arguments).first
                }
            case (true, "attach") where line.object.hasPrefix("wl_surface@"):
                if !line.arguments.hasPrefix("nil") { attached.insert(line.object) }
            case (true, "commit") where line.object.hasPrefix("wl_surface@"):
                guard attached.remove(line.object) != nil else { break }
                // Signed distance across the 32-bit wrap: later than the key press, and not by half the clock.
                guard Int32(bitPattern: line.time &- time) > 0,
                    let output = outputOfSurface[line.object], let name = nameOfOutput[output],
                    outputs.contains(name), commits[name] == nil
                else { break }
                commits[name] = line.time
            default: break
            }
        }
        return commits
    }

    /// "new id zxdg_output_v1@20, wl_output@11" → ["zxdg_output_v1@20", "wl_output@11"].
    static func objectReferences(in arguments: String) -> [String] {
        arguments.split(separator: ",").compactMap { argument in
            guard let word = argument.split(separator: " ").last, word.contains("@") else { return nil }
            return String(word)
        }
    }
}
