import CompositorHarness
import Foundation
import Glibc
import Remote
import Testing

/// Multiscreen against a real headless sway: windows, hotplug, mode and scale changes, pixels.
@Suite(.serialized) struct ScreensOnOutputsTests {
    @Test func aWindowOnEveryOutputWithinASecond() throws {
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(3, timeout: 10)
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
        try app.waitForFirstFrame(on: "HEADLESS-1")
        let name = try sway.createOutput()
        // The buffer committed is only in the log: `status` has the output's mode and scale, not the buffer's.
        try app.waitForLog("first frame committed on \(name): buffer 640x360 scale 1")
        let window = try sway.waitForWindow { $0.output == name && $0.appID == "dev.multiscreen.Multiscreen" }
        #expect(window.rect.width == 640 && window.rect.height == 360)
        try sway.waitForScreenshot(name, "\(name) showing screen 2") { showsScreen($0, index: 1) }
    }

    @Test func modeAndScaleChangesRenderAtTheNewBufferSize() throws {
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)

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
        try app.waitForScreens(2)
        // `kill` sends xdg_toplevel.close: a kiosk must not go dark, nor exit.
        try sway.swaymsg(#"[title="Multiscreen — HEADLESS-2"] kill"#)
        try app.waitForLog("compositor closed the window on HEADLESS-2")
        try app.waitForLog("screen reopened: HEADLESS-2")
        // A log wait on purpose: the reopened screen is the same screen, whose `frames.committed` already counts the
        // frames of its first window, so `status` cannot tell this window's first frame from theirs.
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
        try app.waitForFirstFrame(on: "HEADLESS-1", socket: prefix + "/control.sock")
    }

    @Test func idleMakesNoWakeups() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
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

    /// Issue 13, health: a screen whose content the compositor does not show (its output's window hidden in the
    /// outer sway here; sway 1.7 has also been seen to stop presenting an output after a mode storm) is reported in
    /// `status`, its window recreated, and healthy again once frames are shown.
    @Test func aScreenNotShownIsReportedAndRecovered() throws {
        let outer = try HeadlessSway(outputs: 1, width: 1200, height: 600)
        let nested = try NestedSway(inside: outer, outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: nested.environment)
        try app.waitForScreens(2)
        let client = ControlClient(path: app.home + "/control.sock")
        try nested.hideOutput("WL-2")
        let sent = try client.exchange(line: #"{"method": "send", "params": {"text": "nobody sees this yet"}}"#)
        #expect(sent.contains("\"result\""), "\(sent)")
        // The compositor runs (it answers a sync at once): the window is recreated, not judged stale.
        try app.waitForLog(
            "WL-2: nothing shown for 2.0 s although content waits and the compositor answers: it stopped presenting it; recreating its window"
        )
        #expect(!app.log.contains("WL-1: nothing shown"), "the other screen is shown all along")
        // The recreated window may get a first frame callback from the inner sway even while hidden, or not (then
        // it is reported failed): either way, once the output shows again, so do its frames.
        try nested.showOutput("WL-2")
        try app.waitForLog("WL-2: frames are shown again")
        try waitUntil(timeout: 10, "both screens healthy in status") {
            let status = try client.exchange(line: #"{"method": "status"}"#)
            return status.components(separatedBy: #""health":"ok""#).count == 3
        }
        #expect(app.process.isRunning)
    }

    /// README: after SIGTERM, exit 0 with windows, EGL, outputs and the connection torn down in reverse order of
    /// creation and the state saved. Checked on the client's own protocol trace (`WAYLAND_DEBUG=1`), in which
    /// Multiscreen's log lines ("EGL terminated", "shut down") fall in place, being written by the same thread.
    @Test func sigtermShutsDownInOrder() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment.merging(["WAYLAND_DEBUG": "1"]) { $1 })
        try app.waitForScreens(2)
        // A change to save: the state is written half a second after a change, or at shutdown.
        let reply = try ControlClient(path: app.home + "/control.sock").exchange(
            line: #"{"method": "send", "params": {"text": "saved at shutdown"}}"#)
        #expect(reply.contains("\"result\""), "\(reply)")
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 5) == 0)

        let lines = app.log.split(separator: "\n").map(String.init)
        let signalled = try #require(lines.firstIndex { $0.contains("received signal 15, shutting down") })
        /// The index of the first line after the signal that contains `text`.
        func after(_ text: String) -> Int? { lines[signalled...].firstIndex { $0.contains(text) } }
        /// The first capture of `pattern` in every line before the signal.
        func created(_ pattern: String) throws -> [String] {
            let regex = try Regex(pattern)
            return lines[..<signalled].compactMap { line in
                line.firstMatch(of: regex).flatMap { $0.output[1].substring.map(String.init) }
            }
        }

        // Each window: xdg_toplevel, then xdg_surface, then wl_surface destroyed (as xdg-shell requires).
        let surfaces = lines[..<signalled].compactMap { line -> (xdg: String, wl: String)? in
            guard let m = line.firstMatch(of: #/get_xdg_surface\(new id (xdg_surface@\d+), (wl_surface@\d+)\)/#)
            else { return nil }
            return (String(m.output.1), String(m.output.2))
        }
        let toplevels = Dictionary(
            uniqueKeysWithValues: lines[..<signalled].compactMap { line -> (String, String)? in
                guard let m = line.firstMatch(of: #/(xdg_surface@\d+)\.get_toplevel\(new id (xdg_toplevel@\d+)\)/#)
                else { return nil }
                return (String(m.output.1), String(m.output.2))
            })
        #expect(surfaces.count == 2 && toplevels.count == 2, "two windows opened")
        var windowsGone = 0
        for surface in surfaces {
            let toplevel = try #require(toplevels[surface.xdg])
            let order = [toplevel, surface.xdg, surface.wl].map { after("-> \($0).destroy()") }
            #expect(order.allSatisfy { $0 != nil }, "\(toplevel), \(surface.xdg), \(surface.wl) destroyed: \(order)")
            let indices = order.compactMap { $0 }
            #expect(indices == indices.sorted(), "\(toplevel), \(surface.xdg), \(surface.wl) in that order: \(order)")
            windowsGone = max(windowsGone, indices.max() ?? .max)
        }
        // Then EGL, then the outputs (each xdg_output before its wl_output), then the globals, then the log's last word.
        let egl = try #require(after("EGL terminated"))
        #expect(egl > windowsGone, "EGL terminated after every window was destroyed")
        let outputs = try created(#"bind\(\d+, "wl_output", \d+, new id \[unknown\]@(\d+)\)"#)
        #expect(outputs.count == 2)
        for id in outputs {
            let released = try #require(after("-> wl_output@\(id).release()"), "wl_output@\(id) released")
            #expect(released > egl, "wl_output@\(id) released after EGL terminated")
        }
        let xdgOutputs = try created(#"get_xdg_output\(new id (zxdg_output_v1@\d+), wl_output@\d+\)"#)
        for (xdgOutput, id) in zip(xdgOutputs, outputs) {
            let destroyed = try #require(after("-> \(xdgOutput).destroy()"))
            #expect(destroyed < after("-> wl_output@\(id).release()") ?? 0, "\(xdgOutput) before wl_output@\(id)")
        }
        let lastOutput = outputs.compactMap { after("-> wl_output@\($0).release()") }.max() ?? .max
        let wmBaseID = try #require(try created(#"bind\(\d+, "xdg_wm_base", \d+, new id \[unknown\]@(\d+)\)"#).last)
        let wmBase = try #require(after("-> xdg_wm_base@\(wmBaseID).destroy()"))
        #expect(wmBase > lastOutput, "globals destroyed after the outputs")
        let shutDown = try #require(after("shut down"))
        #expect(shutDown > wmBase && shutDown == lines.indices.last, "'shut down' is the last line")

        // The control socket is removed, last, and the state was saved.
        #expect(!FileManager.default.fileExists(atPath: app.home + "/control.sock"))
        let state = try String(contentsOfFile: app.home + "/state/multiscreen/state.json", encoding: .utf8)
        #expect(state.contains("saved at shutdown"))
    }

    @Test func compositorKilledExitsWithinASecond() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForFirstFrame(on: "HEADLESS-1")
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

    /// `demo --keep`: the instance stays up to be tried with the other commands at the socket it prints, and
    /// Ctrl-C (SIGINT to the demo) stops Multiscreen cleanly and removes the compositor with its display.
    @Test func demoKeepRunsUntilSIGINTForTheOtherCommands() throws {
        let directory = MultiscreenProcess.makeHome()
        var environment = ProcessInfo.processInfo.environment
        for name in ["WAYLAND_DISPLAY", "WAYLAND_SOCKET", "SWAYSOCK", "DISPLAY", "MULTISCREEN_SOCKET"] {
            environment[name] = nil
        }
        environment["HOME"] = directory
        let demo = try ChildProcess(
            MultiscreenProcess.binary, ["demo", "--keep", "--outputs", "2", "--width", "320", "--height", "240"],
            environment: environment, inheritEnvironment: false, workingDirectory: directory)
        defer { demo.kill() }
        let socketLine = try demo.waitForLine(containing: "export MULTISCREEN_SOCKET=", timeout: 60)
        let socket = String(socketLine.split(separator: "=", maxSplits: 1)[1])
        let displayLine = try demo.waitForLine(containing: "Its display: WAYLAND_DISPLAY=", timeout: 5)
        let display = String(displayLine.split(separator: "=", maxSplits: 1)[1].split(separator: " ")[0])
        #expect(FileManager.default.fileExists(atPath: display))

        let send = try ChildProcess(
            MultiscreenProcess.binary, ["send", "--socket", socket, "Still here after the screenshots"],
            environment: environment, inheritEnvironment: false)
        #expect(try send.waitForExit(timeout: 10) == 0, "send:\n\(send.output)\ndemo:\n\(demo.output)")
        let status = try ChildProcess(
            MultiscreenProcess.binary, ["status", "--json", "--socket", socket], environment: environment,
            inheritEnvironment: false)
        #expect(try status.waitForExit(timeout: 10) == 0)
        #expect(status.standardOutput.contains("Still here after the screenshots"))
        #expect(demo.isRunning)

        demo.signal(SIGINT)
        #expect(try demo.waitForExit(timeout: 15) == 0, "log:\n\(demo.output)")
        #expect(demo.standardError.contains("multiscreen shut down cleanly (status 0)"))
        #expect(!FileManager.default.fileExists(atPath: display))
        #expect(!FileManager.default.fileExists(atPath: socket))
    }

    /// The README's starter-kit command: `demo --web examples/starter-kit` screenshots the external page showing
    /// the message its controller page sent (read back by tesseract). Seen failing (about 1 run in 3): with
    /// main.html sending on its first load, the external page sometimes finished loading after the message, never
    /// got it, and its screenshot said "Waiting for a message…".
    @Test func theStarterKitDemoShowsTheMessageOnTheExternalPage() throws {
        let directory = MultiscreenProcess.makeHome()
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var environment = ProcessInfo.processInfo.environment
        for name in ["WAYLAND_DISPLAY", "WAYLAND_SOCKET", "SWAYSOCK", "DISPLAY"] { environment[name] = nil }
        environment["HOME"] = directory
        for run in 1...3 {
            let out = "kit-\(run)"
            let demo = try ChildProcess(
                MultiscreenProcess.binary,
                [
                    "demo", "--web", repository.appendingPathComponent("examples/starter-kit").path, "--out", out,
                    "--width", "640", "--height", "360", "--message", "Gate seven boarding",
                ],
                environment: environment, inheritEnvironment: false, workingDirectory: directory)
            #expect(try demo.waitForExit(timeout: 90) == 0, "log:\n\(demo.output)")
            let tesseract = try ChildProcess(
                "tesseract", [directory + "/\(out)/HEADLESS-2.png", "stdout", "--psm", "3"])
            #expect(try tesseract.waitForExit(timeout: 30) == 0)
            #expect(
                tesseract.standardOutput.contains("Gate seven boarding"), "run \(run) read: \(tesseract.standardOutput)"
            )
        }
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
