import CompositorHarness
import Foundation
import Glibc
import Testing

/// Multiscreen against a real headless sway: windows, hotplug, mode and scale changes, pixels.
@Suite(.serialized) struct ScreensOnOutputsTests {
    @Test func aWindowOnEveryOutputWithinASecond() throws {
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForLogCount("first frame committed on", count: 3, timeout: 10)
        let elapsed = Date().timeIntervalSince(app.started)
        #expect(elapsed < 1.0, "first frame on all 3 outputs took \(elapsed) s")
        let names = ["HEADLESS-1", "HEADLESS-2", "HEADLESS-3"]
        for (index, name) in names.enumerated() {
            let window = try sway.waitForWindow { $0.output == name && $0.appID == "dev.multiscreen.Multiscreen" }
            #expect(window.title == "Multiscreen — \(name)")
            #expect(window.isFullscreen)
            #expect(window.rect.width == 640 && window.rect.height == 360)
            let shot = try sway.waitForScreenshot(name, "\(name) showing screen \(index + 1)") {
                showsScreen($0, index: index)
            }
            #expect(shot.width == 640 && shot.height == 360)
        }
        // Each screen is its own: the three pictures differ.
        let shots = try names.map { try sway.screenshot($0) }
        #expect(shots[0] != shots[1] && shots[1] != shots[2])
        // Signage never blanks: every window holds an idle inhibitor (sway: "application": "enabled").
        let tree = try sway.swaymsg("-t", "get_tree")
        #expect(tree.components(separatedBy: "\"application\": \"enabled\"").count - 1 == 3)
    }

    @Test func anOutputAddedAtRunTimeGetsItsWindow() throws {
        let sway = try HeadlessSway(outputs: 1, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForLog("first frame committed on HEADLESS-1")
        let name = try sway.createOutput()
        try app.waitForLog("first frame committed on \(name): buffer 640x360 scale 1")
        let window = try sway.waitForWindow { $0.output == name && $0.appID == "dev.multiscreen.Multiscreen" }
        #expect(window.rect.width == 640 && window.rect.height == 360)
        try sway.waitForScreenshot(name, "\(name) showing screen 2") { showsScreen($0, index: 1) }
    }

    @Test func modeAndScaleChangesRenderAtTheNewBufferSize() throws {
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForLogCount("first frame committed on", count: 2)

        try sway.setMode("HEADLESS-1", width: 800, height: 600)
        try app.waitForLog("committed on HEADLESS-1: buffer 800x600 scale 1")
        let shot = try sway.waitForScreenshot("HEADLESS-1", "HEADLESS-1 at 800×600") {
            $0.width == 800 && $0.height == 600 && showsScreen($0, index: 0)
        }
        #expect(shot.width == 800)

        // Scale 2 on 640×360: a 320×180 logical surface with a 640×360 buffer at buffer scale 2.
        try sway.setScale("HEADLESS-2", 2)
        try app.waitForLog("committed on HEADLESS-2: buffer 640x360 scale 2")
        try sway.waitForScreenshot("HEADLESS-2", "HEADLESS-2 at scale 2") { showsScreen($0, index: 1) }

        try sway.setTransform("HEADLESS-2", "90")
        try app.waitForLog("committed on HEADLESS-2: buffer 360x640 scale 2")

        #expect(app.process.isRunning)
        #expect(!app.log.contains("protocol error"))
    }

    @Test func aWindowClosedByTheCompositorIsReopened() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForLogCount("first frame committed on", count: 2)
        // `kill` sends xdg_toplevel.close: a kiosk must not go dark, nor exit.
        try sway.swaymsg(#"[title="Multiscreen — HEADLESS-2"] kill"#)
        try app.waitForLog("compositor closed the window on HEADLESS-2")
        try app.waitForLog("screen reopened: HEADLESS-2")
        try app.waitForLog("first frame committed on HEADLESS-2", timeout: 10)
        try sway.waitForWindow { $0.output == "HEADLESS-2" && $0.title == "Multiscreen — HEADLESS-2" }
        try sway.waitForScreenshot("HEADLESS-2") { showsScreen($0, index: 1) }
        #expect(app.process.isRunning)
        #expect(app.log.components(separatedBy: "first frame committed on HEADLESS-2").count - 1 == 2)
    }

    /// The layout `scripts/install` makes (PREFIX/bin, PREFIX/share/multiscreen/shaders), run from another working
    /// directory: the installed binary finds its shaders beside itself, not in the source tree.
    @Test func anInstalledBinaryFindsItsShadersFromAnyDirectory() throws {
        let prefix = MultiscreenProcess.makeHome() + "/prefix"
        let shaders = prefix + "/share/multiscreen/shaders"
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: shaders, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: MultiscreenProcess.binary, toPath: prefix + "/bin/multiscreen")
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shaders").path
        for file in try FileManager.default.contentsOfDirectory(atPath: source) {
            try FileManager.default.copyItem(atPath: source + "/" + file, toPath: shaders + "/" + file)
        }
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let app = try ChildProcess(
            prefix + "/bin/multiscreen", ["run", "--log-level", "debug", "--socket", prefix + "/control.sock"],
            environment: sway.environment.merging(["XDG_STATE_HOME": prefix + "/state"]) { $1 },
            workingDirectory: "/")
        _ = try app.waitForLine(containing: "shaders from \(shaders)", timeout: 10)
        _ = try app.waitForLine(containing: "first frame committed on HEADLESS-1", timeout: 10)
    }

    @Test func idleMakesNoWakeups() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForLogCount("first frame committed on", count: 2)
        // Let the first frames' callbacks and feedback arrive, then watch a quiet second.
        try app.process.waitUntilQuiet()
        // The process watched is Multiscreen itself, not something it became (exec) or a stand-in.
        let binary = URL(fileURLWithPath: MultiscreenProcess.binary).resolvingSymlinksInPath().path
        #expect(try app.process.activity().executable == binary)
        // Throws unless the same Multiscreen ran through the whole second: one that exited makes no wakeups either.
        let switches = try app.process.contextSwitches(during: 1.0)
        #expect(switches == 0, "an idle Multiscreen must not wake up")
        #expect(app.process.isRunning)
    }

    @Test func sigtermShutsDownInOrder() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForLog("first frame committed on HEADLESS-1")
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 2) == 0)
        #expect(app.log.contains("shut down"))
    }

    @Test func compositorKilledExitsWithinASecond() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForLog("first frame committed on HEADLESS-1")
        // The clock starts when sway is killed, not after the harness has reaped it and its helpers.
        let killed = Date()
        sway.signal(SIGKILL)
        let status = try app.process.waitForExit(timeout: 5)
        let elapsed = Date().timeIntervalSince(killed)
        #expect(elapsed < 1.0, "exited \(elapsed) s after sway was killed")
        sway.stop()
        #expect(status == 3, "documented status for a lost compositor; log:\n\(app.log)")
        #expect(app.log.contains("lost the connection to the compositor"))
    }

    @Test func noCompositorIsAClearStartupFailure() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ms-empty-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let app = try MultiscreenProcess(environment: ["XDG_RUNTIME_DIR": dir, "WAYLAND_DISPLAY": "nothing-here"])
        #expect(try app.process.waitForExit(timeout: 5) == 1)
        #expect(app.log.contains("cannot connect to Wayland display 'nothing-here'"))
    }

    @Test func outputsCommandListsEveryOutput() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let list = try MultiscreenProcess(environment: sway.environment, arguments: ["outputs", "--json"])
        #expect(try list.process.waitForExit(timeout: 10) == 0)
        let data = Data(list.process.standardOutput.utf8)
        let outputs = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        #expect(outputs.compactMap { $0["name"] as? String } == ["HEADLESS-1", "HEADLESS-2"])
        #expect(outputs.allSatisfy { $0["modeWidth"] as? Int == 320 && $0["modeHeight"] as? Int == 240 })
    }
}

/// The README's main job: `multiscreen` with no arguments and no Wayland session runs the demo.
@Suite(.serialized) struct MainJobTests {
    @Test func withoutASessionTheDefaultCommandIsTheDemo() throws {
        let directory = MultiscreenProcess.makeHome()
        var environment = ProcessInfo.processInfo.environment
        for name in ["WAYLAND_DISPLAY", "WAYLAND_SOCKET", "SWAYSOCK", "DISPLAY"] { environment[name] = nil }
        environment["HOME"] = directory
        let main = try ChildProcess(
            MultiscreenProcess.binary, [], environment: environment, inheritEnvironment: false,
            workingDirectory: directory)
        // Exit 0 means Multiscreen itself shut down with 0 after the demo's SIGTERM (the next test proves the demo
        // fails otherwise).
        #expect(try main.waitForExit(timeout: 60) == 0, "log:\n\(main.output)")
        #expect(main.standardError.contains("multiscreen shut down cleanly (status 0)"))
        let printed = main.standardOutput.split(separator: "\n").map(String.init)
        #expect(printed == ["HEADLESS-1", "HEADLESS-2"].map { directory + "/multiscreen-demo/\($0).png" })
        for path in printed {
            let shot = try Screenshot(contentsOfFile: path)
            #expect(shot.width == 1280 && shot.height == 720)
        }
        // The external screen shows the demo's message, on its own colour.
        let external = try Screenshot(contentsOfFile: printed[1])
        #expect(showsScreen(external, index: 1))
    }

    /// A Multiscreen that exits non-zero after the demo's SIGTERM fails the demo, with its status, although the
    /// screenshots were taken. The client is a wrapper around the real binary that forwards SIGTERM, waits for it
    /// and exits 7.
    @Test func theDemoFailsWhenMultiscreenExitsNonZeroAfterSIGTERM() throws {
        let directory = MultiscreenProcess.makeHome()
        let wrapper = directory + "/exits-7-after-sigterm"
        try """
        #!/bin/sh
        '\(MultiscreenProcess.binary)' "$@" &
        child=$!
        trap 'kill -TERM $child; wait $child; echo "wrapper: multiscreen exited $?, exiting 7" >&2; exit 7' TERM
        wait $child
        """.write(toFile: wrapper, atomically: true, encoding: .utf8)
        #expect(chmod(wrapper, 0o755) == 0)
        var environment = ProcessInfo.processInfo.environment
        for name in ["WAYLAND_DISPLAY", "WAYLAND_SOCKET", "SWAYSOCK", "DISPLAY"] { environment[name] = nil }
        environment["HOME"] = directory
        let demo = try ChildProcess(
            MultiscreenProcess.binary,
            ["demo", "--client", wrapper, "--outputs", "2", "--width", "320", "--height", "240"],
            environment: environment, inheritEnvironment: false, workingDirectory: directory)
        #expect(try demo.waitForExit(timeout: 60) == 7, "log:\n\(demo.output)")
        #expect(demo.output.contains("wrapper: multiscreen exited 0, exiting 7"))
        #expect(demo.output.contains("multiscreen exited with status 7 after SIGTERM"))
    }
}
