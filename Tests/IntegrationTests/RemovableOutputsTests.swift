import CompositorHarness
import Foundation
import Remote
import Testing

/// Outputs that go away: a nested sway, whose outputs are windows of an outer headless sway.
@Suite(.serialized) struct RemovableOutputsTests {
    @Test func aRemovedOutputTearsItsWindowDown() throws {
        let outer = try HeadlessSway(outputs: 1, width: 1280, height: 720)
        let nested = try NestedSway(inside: outer, outputs: 2, width: 400, height: 300)
        let app = try MultiscreenProcess(environment: nested.environment)
        try app.waitForScreens(2)
        // Warm up one add/remove cycle so lazily created resources (caches, EGL internals) exist before counting.
        let warm = try nested.createOutput()
        try app.waitForFirstFrame(on: "\(warm)")
        try nested.removeOutput(warm)
        try app.waitForLog("screen closed: \(warm)")
        let fdsBefore = app.process.openFileDescriptorCount

        for cycle in 0..<3 {
            let name = try nested.createOutput()
            try app.waitForFirstFrame(on: "\(name)")
            try nested.removeOutput(name)
            try app.waitForLog("screen closed: \(name)")
            #expect(app.process.isRunning, "cycle \(cycle)")
        }
        #expect(app.process.openFileDescriptorCount == fdsBefore, "fd count must not grow with hotplug")
        // WL-2 goes too: what its window held goes with it (with one background for every screen, the shared frames
        // of a group it drew for), so the count may only fall.
        try nested.removeOutput("WL-2")
        try app.waitForLog("screen closed: WL-2")
        #expect(app.process.isRunning)
        #expect(app.process.openFileDescriptorCount <= fdsBefore, "fd count must not grow with hotplug")
        // The remaining screen still draws, now as the only one.
        try nested.waitForScreenshot("WL-1", "WL-1 still showing screen 1") { showsScreen($0, index: 0) }
        #expect(!app.log.contains("protocol error"))
    }

    @Test func allOutputsRemovedThenOneAdded() throws {
        let outer = try HeadlessSway(outputs: 1, width: 1280, height: 720)
        let nested = try NestedSway(inside: outer, outputs: 1, width: 400, height: 300)
        let app = try MultiscreenProcess(environment: nested.environment)
        try app.waitForFirstFrame(on: "WL-1")
        try nested.removeOutput("WL-1")
        try app.waitForLog("no outputs: waiting for one")
        #expect(app.process.isRunning)
        let name = try nested.createOutput()
        try app.waitForFirstFrame(on: "\(name)")
        try nested.waitForScreenshot(name, "\(name) showing screen 1") { showsScreen($0, index: 0) }
        #expect(app.process.isRunning)
    }

    /// Reliability R4: with no output at all for 30 s (`MULTISCREEN_NO_OUTPUT_SECONDS` for another length), a
    /// message and a `status` request every half second: every reply within 100 ms, every message kept (in the log
    /// and the state file); when outputs return, the external screen shows the newest within a second.
    @Test func withNoOutputsMessagesAreKeptAndShownWhenAScreenReturns() throws {
        let outer = try HeadlessSway(outputs: 1, width: 1280, height: 720)
        let nested = try NestedSway(inside: outer, outputs: 2, width: 400, height: 300)
        let app = try MultiscreenProcess(environment: nested.environment)
        try app.waitForScreens(2)
        try nested.removeOutput("WL-1")
        try nested.removeOutput("WL-2")
        try app.waitForLog("no outputs: waiting for one")
        let seconds = Double(ProcessInfo.processInfo.environment["MULTISCREEN_NO_OUTPUT_SECONDS"] ?? "") ?? 30
        let client = ControlClient(path: app.home + "/control.sock")
        var slowest = 0.0
        var sent = 0
        let outputsGone = Date()
        while Date().timeIntervalSince(outputsGone) < seconds {
            sent += 1
            for line in [#"{"method": "send", "params": {"text": "kept \#(sent)"}}"#, #"{"method": "status"}"#] {
                let started = Date()
                let reply = try client.exchange(line: line)
                slowest = max(slowest, Date().timeIntervalSince(started))
                #expect(reply.contains("\"result\""), "\(reply)")
            }
            usleep(500_000)
        }
        #expect(slowest < 0.1, "every reply within 100 ms with no output: slowest \(slowest) s")
        // `status` lists the newest 20 messages; the state file below holds them all.
        let status = try client.exchange(line: #"{"method": "status"}"#)
        for number in max(1, sent - 19)...sent { #expect(status.contains("kept \(number)\""), "message \(number)") }
        let first = try nested.createOutput()
        let second = try nested.createOutput()
        let returned = Date()
        try app.waitForFirstFrame(on: "\(second)")
        // The second screen is external: the newest message is on it (its background and the message's text).
        try nested.waitForScreenshot(second, "\(second) showing the kept messages") { shot in
            shot.fraction(of: expectedBackground(1), tolerance: 2) > 0.5
                && shot.fraction(of: expectedBackground(1)) < 0.995
        }
        #expect(Date().timeIntervalSince(returned) < 2, "shown within about a second of the output's return")
        _ = first
        #expect(app.process.isRunning)
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 5) == 0)
        let state = try String(contentsOfFile: app.home + "/state/multiscreen/state.json", encoding: .utf8)
        let missing = (1...sent).filter { !state.contains("kept \($0)\"") }
        #expect(missing.isEmpty, "\(sent) messages sent with no output, missing from the state file: \(missing)")
    }

    /// Reliability R2 (fast tier): an output that goes away right after it appears, before or while Multiscreen
    /// binds it and opens a window on it, 15 times at 0-50 ms (`MULTISCREEN_RACE_ROUNDS` for more): never a protocol
    /// error, never a disconnect.
    @Test func outputsRemovedRightAfterTheyAppearCauseNoProtocolError() throws {
        let outer = try HeadlessSway(outputs: 1, width: 1600, height: 900)
        let nested = try NestedSway(inside: outer, outputs: 1, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: nested.environment)
        try app.waitForFirstFrame(on: "WL-1")
        var generator = SystemRandomNumberGenerator()
        // The long tier (scripts/reliability) asks for more rounds through the environment.
        let rounds = Int(ProcessInfo.processInfo.environment["MULTISCREEN_RACE_ROUNDS"] ?? "") ?? 15
        for _ in 0..<rounds {
            let name = try nested.createOutput()
            usleep(UInt32.random(in: 0...50_000, using: &generator))
            try nested.removeOutput(name)
        }
        // Still connected and drawing: a new output gets its window and first frame.
        let last = try nested.createOutput()
        try app.waitForFirstFrame(on: "\(last)")
        #expect(app.process.isRunning)
        #expect(!app.log.contains("protocol error from the compositor"), "no protocol error")
        #expect(!app.log.contains("lost the connection"))
    }

    @Test func aResizedNestedOutputRerenders() throws {
        let outer = try HeadlessSway(outputs: 1, width: 1280, height: 720)
        let nested = try NestedSway(inside: outer, outputs: 1, width: 400, height: 300)
        let app = try MultiscreenProcess(environment: nested.environment)
        try app.waitForFirstFrame(on: "WL-1")
        try nested.resizeOutput("WL-1", width: 500, height: 320)
        try app.waitForLog("committed on WL-1: buffer 500x320 scale 1")
        try nested.waitForScreenshot("WL-1", "WL-1 at 500×320") {
            $0.width == 500 && $0.height == 320 && showsScreen($0, index: 0)
        }
    }
}
