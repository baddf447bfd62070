import CompositorHarness
import Foundation
import Remote
import Synchronization
import Testing

/// Reliability R3: modes, scales and transforms of two outputs changed at 10 Hz each while messages flow.
@Suite(.serialized) struct OutputStormTests {
    /// Every buffer Multiscreen commits has the size the compositor last asked for within 3 commits of the change
    /// (read off its own Wayland trace), no buffer has a size its scale does not divide, every message is answered,
    /// and after the storm each screen shows its content at the final mode.
    ///
    /// The fast tier storms for 10 s; `MULTISCREEN_STORM_SECONDS` asks for more (the long tier: 60).
    @Test func modeScaleAndTransformStormKeepsBuffersRight() throws {
        let seconds = Double(ProcessInfo.processInfo.environment["MULTISCREEN_STORM_SECONDS"] ?? "") ?? 10
        let sway = try HeadlessSway(outputs: 2, width: 480, height: 360)
        // The checks read the whole trace, from the outputs' first events on (about 2 500 lines a second here), so
        // the harness must keep all of it rather than its usual newest 50 000 lines.
        let keptLines = 100_000 + Int(seconds) * 10_000
        let app = try MultiscreenProcess(
            environment: sway.environment.merging(["WAYLAND_DEBUG": "1"]) { $1 }, keptLines: keptLines)
        try app.waitForScreens(2)

        let sender = MessageStream(client: ControlClient(path: app.home + "/control.sock"))
        sender.start(every: 0.1)
        // Sizes every scale here divides, so each change is one the client can follow exactly.
        let modes = [(480, 360), (720, 480), (600, 360)]
        let scales = [1, 2, 3]
        let transforms = ["normal", "90", "180", "270", "flipped-90"]
        var generator = SystemRandomNumberGenerator()
        var requested = 0
        let end = Date().addingTimeInterval(seconds)
        var tick = Date()
        while Date() < end {
            for output in ["HEADLESS-1", "HEADLESS-2"] {
                switch Int.random(in: 0..<3, using: &generator) {
                case 0:
                    let (w, h) = modes.randomElement(using: &generator)!
                    _ = try sway.swaymsg("output", output, "mode", "\(w)x\(h)")
                case 1:
                    _ = try sway.swaymsg("output", output, "scale", "\(scales.randomElement(using: &generator)!)")
                default:
                    _ = try sway.swaymsg("output", output, "transform", transforms.randomElement(using: &generator)!)
                }
                requested += 1
            }
            tick.addTimeInterval(0.1)
            let wait = tick.timeIntervalSinceNow
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
        }
        let sent = sender.stop()

        let traced = app.log.utf8.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        try #require(traced < keptLines, "the trace was cut: \(traced) lines, \(keptLines) kept")
        // The storm is over: each screen's last buffer must match what sway now has.
        let outputs = try sway.outputs()
        for output in outputs {
            let rotated = output.transform.hasSuffix("90") || output.transform.hasSuffix("270")
            let width = rotated ? output.mode.height : output.mode.width
            let height = rotated ? output.mode.width : output.mode.height
            let scale = Int(output.scale)
            do {
                try waitUntil(timeout: 10, "\(output.name)'s last buffer \(width)x\(height) scale \(scale)") {
                    let last = SurfaceBufferTrace(app.log).committed[output.name]?.last
                    return last?.width == width && last?.height == height && last?.scale == scale
                }
            } catch {
                try? app.log.write(toFile: app.home + "/wayland-trace.log", atomically: false, encoding: .utf8)
                let last = SurfaceBufferTrace(app.log).committed[output.name]?.last
                throw HarnessError(
                    "\(error); sway has \(output); the last buffer committed: \(last.map { "\($0)" } ?? "none"); "
                        + "trace \(app.home)/wayland-trace.log")
            }
        }
        // Then back to a plain mode, where a screenshot can judge the pixels (at scale 3 on 480×360 the controller's
        // UI fills most of its 160×120 logical pixels, which the check of its background cannot judge).
        for (index, name) in ["HEADLESS-1", "HEADLESS-2"].enumerated() {
            try sway.setTransform(name, "normal")
            try sway.setScale(name, 1)
            try sway.setMode(name, width: 480, height: 360)
            do {
                try sway.waitForScreenshot(name, "\(name) showing its screen after the storm") {
                    $0.width == 480 && showsScreen($0, index: index)
                }
            } catch {
                let path = app.home + "/\(name)-after-storm.png"
                try? sway.screenshotPNG(name, to: path)
                try? app.log.write(toFile: app.home + "/wayland-trace.log", atomically: false, encoding: .utf8)
                throw HarnessError("\(error); screenshot \(path), trace \(app.home)/wayland-trace.log")
            }
        }

        let trace = SurfaceBufferTrace(app.log)
        // Kept for reading when something is late: the whole log with the Wayland trace, in the instance's home.
        try app.log.write(toFile: app.home + "/wayland-trace.log", atomically: false, encoding: .utf8)
        print(
            "R3 storm: \(seconds) s, \(requested) changes asked, \(trace.changes) seen by the client, "
                + "\(trace.committed.values.map(\.count).reduce(0, +)) buffers committed, worst: right at buffer "
                + "\(trace.worstCommitsToRightSize) after a change, \(trace.late.count) late, "
                + "\(trace.scaleErrors.count) scale errors, \(sent.answered)/\(sent.sent) messages answered; "
                + "trace in \(app.home)/wayland-trace.log")
        #expect(trace.changes >= requested / 4, "the client saw the storm (\(trace.changes) changes)")
        #expect(trace.late.isEmpty, "late buffers: \(trace.late.prefix(10))")
        #expect(trace.scaleErrors.isEmpty, "scale errors: \(trace.scaleErrors.prefix(10))")
        #expect(sent.sent >= Int(seconds * 5) && sent.answered == sent.sent, "\(sent)")
        #expect(app.process.isRunning)
        #expect(!app.log.contains("protocol error"))
        let status = try ControlClient(path: app.home + "/control.sock").exchange(line: #"{"method": "status"}"#)
        #expect(status.contains("storm \(sent.sent)\""), "the last message is kept")
    }
}

/// Sends `storm N` messages over the control socket from a thread of its own until stopped.
private final class MessageStream: Sendable {
    struct Counts: CustomStringConvertible {
        var sent = 0
        var answered = 0
        var failures: [String] = []
        var description: String { "\(answered)/\(sent) answered, failures: \(failures.prefix(5))" }
    }

    private let client: ControlClient
    private let state = Mutex((stop: false, counts: Counts()))
    private let finished = DispatchSemaphore(value: 0)

    init(client: ControlClient) { self.client = client }

    func start(every interval: Double) {
        Thread { [self] in
            var number = 0
            while !state.withLock({ $0.stop }) {
                number += 1
                let line = #"{"method": "send", "params": {"text": "storm \#(number)"}}"#
                let reply = Result { try client.exchange(line: line) }
                state.withLock {
                    $0.counts.sent += 1
                    switch reply {
                    case .success(let text) where text.contains("\"result\""): $0.counts.answered += 1
                    case .success(let text): $0.counts.failures.append(text)
                    case .failure(let error): $0.counts.failures.append("\(error)")
                    }
                }
                usleep(UInt32(interval * 1_000_000))
            }
            finished.signal()
        }.start()
    }

    func stop() -> Counts {
        state.withLock { $0.stop = true }
        finished.wait()
        return state.withLock { $0.counts }
    }
}

/// The checker itself, on a hand-made trace: it must see a buffer that stays wrong, and a scale that does not divide.
@Suite struct SurfaceBufferTraceTests {
    static func trace(commitsAfterChange buffers: [(Int, Int)], scale: Int) -> String {
        var lines = [
            "[1.0] wl_output@15.name(\"HEADLESS-1\")", "[1.0] wl_output@15.scale(1)",
            "[1.0]  -> wl_compositor@4.create_surface(new id wl_surface@6)",
            "[1.0]  -> xdg_wm_base@9.get_xdg_surface(new id xdg_surface@20, wl_surface@6)",
            "[1.0]  -> xdg_surface@20.get_toplevel(new id xdg_toplevel@21)",
            "[1.0]  -> xdg_toplevel@21.set_fullscreen(wl_output@15)",
            "[1.0] xdg_toplevel@21.configure(480, 360, array[24])",
            "[1.0]  -> wl_shm_pool@30.create_buffer(new id wl_buffer@31, 0, 480, 360, 1920, 0)",
            "[1.0]  -> wl_surface@6.attach(wl_buffer@31, 0, 0)", "[1.0]  -> wl_surface@6.commit()",
            "[2.0] wl_output@15.scale(\(scale))", "[2.0] xdg_toplevel@21.configure(240, 180, array[24])",
        ]
        for (index, (width, height)) in buffers.enumerated() {
            lines += [
                "[3.0]  -> wl_shm_pool@30.create_buffer(new id wl_buffer@\(40 + index), 0, \(width), \(height), 0, 0)",
                "[3.0]  -> wl_surface@6.set_buffer_scale(\(scale))",
                "[3.0]  -> wl_surface@6.attach(wl_buffer@\(40 + index), 0, 0)", "[3.0]  -> wl_surface@6.commit()",
            ]
        }
        return lines.joined(separator: "\n")
    }

    @Test func rightAtTheThirdBufferIsInTime() {
        let trace = SurfaceBufferTrace(Self.trace(commitsAfterChange: [(240, 180), (240, 180), (480, 360)], scale: 2))
        #expect(trace.late.isEmpty && trace.scaleErrors.isEmpty)
        #expect(trace.worstCommitsToRightSize == 3)
        #expect(trace.committed["HEADLESS-1"]?.count == 4)
    }

    @Test func wrongAtTheFourthBufferIsLate() {
        let wrong = Array(repeating: (480, 360), count: 4)
        let trace = SurfaceBufferTrace(Self.trace(commitsAfterChange: wrong + [(480, 360)], scale: 3))
        #expect(trace.late.count == 2, "\(trace.late)")
        #expect(trace.late.first?.output == "HEADLESS-1")
    }

    @Test func aSizeTheScaleDoesNotDivideIsAScaleError() {
        let trace = SurfaceBufferTrace(Self.trace(commitsAfterChange: [(481, 360), (480, 360)], scale: 2))
        #expect(trace.scaleErrors.count == 1, "\(trace.scaleErrors)")
    }
}
