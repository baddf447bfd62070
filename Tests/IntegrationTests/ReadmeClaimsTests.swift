import CompositorHarness
import Foundation
import Glibc
import Outputs
import Remote
import Testing

/// Issue 16: what the README and its pages (docs/screens.md, docs/configuration.md) promise and no test checked,
/// against a real compositor.
@Suite(.serialized) struct ReadmeClaimsTests {
    static let focusRing = RGBColor(hex: 0xFA_CC_15)
    static let black = RGBColor(hex: 0x00_00_00)

    /// `status`'s screens by name (each `{"name", "role", "content"?, …}`) and its controller.
    private func screens(_ app: MultiscreenProcess) throws -> (screens: [String: [String: Any]], controller: String?) {
        let reply = try app.request(#"{"method": "status"}"#)
        let object = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
        let result = object?["result"] as? [String: Any] ?? [:]
        var byName: [String: [String: Any]] = [:]
        for screen in result["screens"] as? [[String: Any]] ?? [] {
            if let name = screen["name"] as? String { byName[name] = screen }
        }
        return (byName, result["controller"] as? String)
    }

    // MARK: - Exit statuses

    /// Exit 1: the control socket is taken by another running Multiscreen; the first one keeps running.
    /// Seen failing: with `removeStaleSocket` unlinking a socket that answers, the second instance took the path over
    /// and ran (`waitForExit` timed out).
    @Test func aTakenControlSocketIsExitStatusOne() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let first = try MultiscreenProcess(environment: sway.environment)
        try first.waitForFirstFrame(on: "HEADLESS-1")
        let second = try MultiscreenProcess(environment: sway.environment, home: first.home)
        #expect(try second.process.waitForExit(timeout: 5) == 1, "\(second.log)")
        #expect(second.log.contains("another Multiscreen is listening at \(first.home)/control.sock"))
        #expect(first.process.isRunning)
        #expect(try first.request(#"{"method": "status"}"#).contains("\"result\""), "the socket is still the first's")
    }

    /// Exit 64: bad command-line usage, for `run` and for the control commands, before anything connects. (A contract
    /// check of swift-argument-parser's EX_USAGE; not seen failing, since no code of ours maps it.)
    @Test func badUsageIsExitStatus64() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ms-usage-\(getpid())").path
        let environment = ["XDG_RUNTIME_DIR": dir, "WAYLAND_DISPLAY": "nothing-here"]
        for arguments in [["run", "--no-such-option"], ["send"], ["content", "set", "HEADLESS-1"], ["frobnicate"]] {
            let cli = try MultiscreenProcess(environment: environment, arguments: arguments)
            #expect(try cli.process.waitForExit(timeout: 5) == 64, "\(arguments): \(cli.log)")
            #expect(!cli.log.contains("cannot connect"), "usage is checked before connecting: \(cli.log)")
        }
    }

    /// Exit 1 when the shaders cannot be compiled: they are compiled before the first window (Mesa has
    /// EGL_KHR_surfaceless_context), so the failure is fatal at start. Seen failing: with `graphics.prepare()`
    /// not called (shaders compiled at the first window), Multiscreen kept running (`waitForExit` timed out).
    @Test func unusableShadersAreExitStatusOne() throws {
        let shaders = MultiscreenProcess.makeHome() + "/shaders"
        try FileManager.default.createDirectory(atPath: shaders, withIntermediateDirectories: true)
        for name in ["quad.vert", "solid.frag", "text.frag", "texture.frag"] {
            try "this is not GLSL {".write(toFile: shaders + "/" + name, atomically: true, encoding: .utf8)
        }
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let app = try MultiscreenProcess(
            environment: sway.environment.merging(["MULTISCREEN_SHADERS": shaders]) { $1 })
        #expect(try app.process.waitForExit(timeout: 10) == 1, "\(app.log)")
        #expect(app.log.contains("cannot start"))
        #expect(!app.log.contains("first frame committed"))
    }

    /// The default control socket's directory, `$XDG_RUNTIME_DIR/multiscreen`: created 0700 when missing (the socket
    /// 0600 inside), and an existing one that is not private — open to others, a symbolic link, someone else's — is
    /// refused with exit 1 and the fix named. Seen failing: without the check in Run.swift, the 0755 directory was
    /// used (Multiscreen started instead of exiting 1).
    @Test func theDefaultSocketDirectoryMustBePrivate() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let home = MultiscreenProcess.makeHome()
        let runtime = home + "/runtime"
        let directory = runtime + "/multiscreen"
        let files = FileManager.default
        try files.createDirectory(
            atPath: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        // No MULTISCREEN_SOCKET: the default path, named after the display.
        let environment = [
            "XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": sway.waylandSocketPath, "MULTISCREEN_SOCKET": "",
            "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config", "MULTISCREEN_LOG_LEVEL": "debug",
        ]
        func run() throws -> ChildProcess {
            try ChildProcess(MultiscreenProcess.binary, ["run"], environment: environment)
        }
        func refused(_ why: String) throws {
            let app = try run()
            #expect(try app.waitForExit(timeout: 5) == 1, "\(why): \(app.output)")
            #expect(app.output.contains("\(directory) \(why)"), "\(app.output)")
            #expect(app.output.contains("must be private"), "\(app.output)")
        }

        try files.createDirectory(
            atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        try refused("has mode 0755, not 0700")
        try files.removeItem(atPath: directory)
        try files.createDirectory(
            atPath: home + "/elsewhere", withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try files.createSymbolicLink(atPath: directory, withDestinationPath: home + "/elsewhere")
        try refused("is not a directory (or is a symbolic link)")
        try files.removeItem(atPath: directory)
        if geteuid() == 0 {
            // Only root can make a directory that belongs to someone else.
            try files.createDirectory(
                atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            #expect(chown(directory, 65_534, 65_534) == 0)
            try refused("belongs to uid 65534")
            try files.removeItem(atPath: directory)
        }

        let app = try run()
        let socket = directory + "/" + (sway.waylandSocketPath as NSString).lastPathComponent + ".sock"
        try app.waitForFirstFrame(on: "HEADLESS-1", socket: socket)
        var info = stat()
        #expect(lstat(directory, &info) == 0 && info.st_mode & 0o777 == 0o700, "created 0700")
        #expect(lstat(socket, &info) == 0 && info.st_mode & 0o777 == 0o600, "the socket 0600 at \(socket)")
        app.signal(SIGTERM)
        #expect(try app.waitForExit(timeout: 5) == 0)
    }

    // MARK: - Paths, config

    /// `run --config P --state P` read and write exactly those files, not the defaults under XDG_*_HOME.
    /// Seen failing: with Run.swift not passing `config` and `state` on, the log never named the given config.
    @Test func runUsesTheConfigAndStatePathsGiven() throws {
        let elsewhere = MultiscreenProcess.makeHome()
        let config = elsewhere + "/rules.toml"
        let state = elsewhere + "/saved/state.json"
        try """
        [[rule]]
        match = { name = "HEADLESS-2" }
        role = "controller"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(
            environment: sway.environment, arguments: ["run", "--config", config, "--state", state])
        try app.waitForLog("config \(config): 1 role rules")
        try app.waitForLog("controller moved from (none) to HEADLESS-2")
        _ = try app.request(#"{"method": "send", "params": {"text": "kept at the given path"}}"#)
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 5) == 0)
        let saved = try String(contentsOfFile: state, encoding: .utf8)
        #expect(saved.contains("kept at the given path"))
        #expect(!FileManager.default.fileExists(atPath: app.home + "/state/multiscreen/state.json"))
        // A config named with --config must exist.
        let missing = try MultiscreenProcess(
            environment: sway.environment, arguments: ["run", "--config", elsewhere + "/nope.toml"])
        try missing.waitForLog("config not used")
        missing.process.signal(SIGTERM)
        _ = try missing.process.waitForExit(timeout: 5)
    }

    /// A broken config is reported with its line and column, and Multiscreen runs, failing safe: with no config
    /// that was good before, no screen shows the controller UI (the defaults would put it on HEADLESS-1, which this
    /// config's rules did not make the controller). Seen failing: with the logged error reduced to "config not
    /// used", the checks for the offending key and for line and column failed; with the defaults used, the
    /// controller UI showed on HEADLESS-1.
    @Test func aBrokenConfigFailsSafe() throws {
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            """
            [[rule]]
            match = { name = "HEADLESS-2" }
            role = "controller"
            colour = "blue"
            """, home: home)
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        let error = try app.waitForLog("config not used")
        #expect(error.contains("colour"), "the offending key is named: \(error)")
        try app.waitForLog("none was good before: every screen external, no controller UI")
        try app.waitForScreens(2)
        for output in ["HEADLESS-1", "HEADLESS-2"] {
            #expect(try sway.screenshot(output).fraction(of: Self.focusRing) == 0, "the controller UI on \(output)")
        }
        #expect(!app.log.contains("controller moved from (none) to"), "a controller was chosen")

        let syntax = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig("[[rule]\nbroken", home: syntax)
        let second = try MultiscreenProcess(environment: sway.environment, home: syntax)
        let line = try second.waitForLog("config not used")
        #expect(line.contains("line ") && line.contains("column "), "line and column are named: \(line)")
        second.process.signal(SIGTERM)
        _ = try second.process.waitForExit(timeout: 5)
    }

    // MARK: - Control socket

    /// `outputs` over the socket: every output with its name and mode as the compositor has it. Seen failing: with
    /// the reply's list emptied in `ProductController`.
    @Test func outputsOverTheSocket() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        try sway.setMode("HEADLESS-2", width: 400, height: 300)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        let reply = try app.request(#"{"method": "outputs"}"#)
        let object = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
        let outputs = (object?["result"] as? [String: Any])?["outputs"] as? [[String: Any]] ?? []
        #expect(outputs.map { $0["name"] as? String } == ["HEADLESS-1", "HEADLESS-2"], "\(reply)")
        #expect(outputs.last?["width"] as? Int == 400 && outputs.last?["height"] as? Int == 300, "\(reply)")
        #expect(outputs.first?["width"] as? Int == 320, "\(reply)")
    }

    /// The CLI never hands a terminal the control characters of what others sent: `status` prints a message's
    /// escape sequences as `\u{1b}` escapes, and an error quoting a screen name does the same. Seen failing: with
    /// `ResultText` printing strings as they are, the ESC bytes reached standard output.
    @Test func theCLIPrintsControlCharactersEscaped() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        #expect(try app.command(["send", "title \u{1b}]0;pwned\u{7} clear \u{1b}[2J"]).status == 0)
        let status = try app.command(["status"])
        #expect(status.status == 0)
        #expect(status.output.contains(#"title \u{1b}]0;pwned\u{7} clear \u{1b}[2J"#), "\(status.output)")
        #expect(!status.output.contains("\u{1b}"), "no raw ESC on standard output")
        let refused = try app.command(["send", "--screen", "\u{1b}[31mRED", "x"])
        #expect(refused.status == 2)
        #expect(refused.output.contains(#"unknown screen '\u{1b}[31mRED'"#), "\(refused.output)")
        #expect(!refused.output.contains("\u{1b}"))
    }

    // MARK: - Restored roles and modes

    /// Roles and content modes set at run time come back after a restart (cards and messages are checked in
    /// ControllerTests). Seen failing: with `ScreenModel.persistentState` saving no roles or modes, the second run
    /// put the controller back on HEADLESS-1 and HEADLESS-1 was not blank.
    @Test func rolesAndContentModesAreRestoredAfterARestart() throws {
        let home = MultiscreenProcess.makeHome()
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        do {
            let first = try MultiscreenProcess(environment: sway.environment, home: home)
            try first.waitForScreens(2)
            #expect(try first.command(["role", "set", "HEADLESS-2", "controller"]).status == 0)
            #expect(try first.command(["content", "set", "HEADLESS-1", "blank"]).status == 0)
            try first.waitForLog("HEADLESS-1: content messages → blank")
            first.process.signal(SIGTERM)
            #expect(try first.process.waitForExit(timeout: 5) == 0)
        }
        let second = try MultiscreenProcess(environment: sway.environment, home: home)
        try second.waitForScreens(2)
        let status = try screens(second)
        #expect(status.controller == "HEADLESS-2")
        #expect(status.screens["HEADLESS-1"]?["content"] as? String == "blank", "\(status.screens)")
        try sway.waitForScreenshot("HEADLESS-1", "HEADLESS-1 blank") { $0.fraction(of: Self.black) > 0.999 }
        try sway.waitForScreenshot("HEADLESS-2", "the controller UI on HEADLESS-2") {
            $0.fraction(of: Self.focusRing) > 0.001
        }
    }

    // MARK: - Mirror letterboxing

    /// A mirror on an output of another aspect ratio keeps the controller's: black bars above and below on a square
    /// output, the picture between them. Seen failing: with the mirror drawn over the whole output (no
    /// letterbox), the top band was the controller's background, not black.
    @Test func aMirrorOfAnotherAspectRatioIsLetterboxed() throws {
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            """
            [[rule]]
            match = { name = "HEADLESS-2" }
            role = "external"
            content = "mirror"
            """, home: home)
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        try sway.setMode("HEADLESS-2", width: 360, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForScreens(2)
        // 640×360 into 360×360: the picture is 360×202.5, bars of about 79 px above and below.
        try sway.waitForScreenshot("HEADLESS-2", "a letterboxed mirror") { shot in
            let top = shot.region(x: 0, y: 0, width: 360, height: 75)
            let bottom = shot.region(x: 0, y: 285, width: 360, height: 75)
            let picture = shot.region(x: 0, y: 85, width: 360, height: 190)
            return top.fraction(of: Self.black) > 0.999 && bottom.fraction(of: Self.black) > 0.999
                && picture.fraction(of: expectedBackground(0), tolerance: 2) > 0.4
                && picture.fraction(of: Self.black) < 0.05
        }
    }
}

/// The controller UI from the keyboard, through `multiscreen run` on a real sway.
@Suite(.serialized) struct ControllerKeyboardTests {
    /// "Every key goes to the controller UI, whichever window the compositor gave focus to": sway's focus on the
    /// external screen's window, the typed text is sent from the controller. Seen failing: with the key handler
    /// ignoring keys whose surface is not the controller's, no message was logged (waitForLog timed out).
    @Test func keysTypedIntoAnExternalWindowGoToTheController() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        try sway.swaymsg("focus output HEADLESS-2")
        try sway.waitForWindow { $0.output == "HEADLESS-2" && $0.isFocused }
        let holder = try app.holdKeyboard(sway)
        defer { holder.kill() }
        try typeKeys(sway, ["typed elsewhere"])
        try typeKeys(sway, ["-k", "Return"])
        try app.waitForLog("message #1 for every screen: typed elsewhere")
        #expect(try sway.windows().contains { $0.output == "HEADLESS-2" && $0.isFocused }, "focus stayed external")
    }

    /// Enter on a focused screen row cycles that screen's content mode: messages → mirror → card → blank →
    /// messages. Seen failing: with `.cycleContent` mapped to no change, the log never said "content messages →
    /// mirror".
    @Test func enterOnAScreenRowCyclesItsContentMode() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        let idle = try sway.waitForScreenshot("HEADLESS-2") { showsScreen($0, index: 1) }
        let holder = try app.holdKeyboard(sway)
        defer { holder.kill() }
        // Text field → row 0 (HEADLESS-1) → row 1 (HEADLESS-2).
        try typeKeys(sway, ["-k", "Down", "-k", "Down", "-k", "Return"])
        try app.waitForLog("HEADLESS-2: content messages → mirror")
        try sway.waitForScreenshot("HEADLESS-2", "the mirror") {
            $0.fraction(of: ReadmeClaimsTests.focusRing) > 0.001 && $0.fraction(differingFrom: idle) > 0.1
        }
        for (from, to) in [("mirror", "card"), ("card", "blank"), ("blank", "messages")] {
            try typeKeys(sway, ["-k", "Return"])
            try app.waitForLog("HEADLESS-2: content \(from) → \(to)")
        }
        try sway.waitForScreenshot("HEADLESS-2", "messages again") { $0.fraction(differingFrom: idle) < 0.001 }
    }
}

/// The `[controller]` table of the config on a nested sway, whose outputs can go away.
@Suite(.serialized) struct ControllerFallbackTests {
    /// `fallback = "none"`: while the preferred controller's output is missing nobody stands in.
    /// Seen failing: with `fallback` parsed but ignored (always `.first`), WL-1 took the controller UI.
    @Test func fallbackNoneLeavesNoControllerWhileItsOutputIsGone() throws {
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            """
            [controller]
            fallback = "none"

            [[rule]]
            match = { name = "WL-2" }
            role = "controller"
            """, home: home)
        let outer = try HeadlessSway(outputs: 1, width: 1600, height: 900)
        let nested = try NestedSway(inside: outer, outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: nested.environment, home: home)
        try app.waitForLog("controller moved from (none) to WL-2")
        try nested.removeOutput("WL-2")
        try app.waitForLog("controller moved from WL-2 to (none)")
        try nested.waitForScreenshot("WL-1", "WL-1 external") { showsScreen($0, index: 0) }
        let status = try ControlClient(path: app.home + "/control.sock").exchange(line: #"{"method": "status"}"#)
        #expect(status.contains(#""controller":null"#), "\(status)")
        #expect(!app.log.contains("to WL-1"))
    }

    /// `return = false`: the stand-in keeps the controller UI when the preferred output appears; the preferred one
    /// takes it only when the stand-in goes. Seen failing: with `returnsToPreferred` forced to true, the log said
    /// "controller moved from WL-1 to WL-3" as soon as WL-3 appeared.
    @Test func returnFalseKeepsTheStandIn() throws {
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            """
            [controller]
            fallback = "first"
            return = false

            [[rule]]
            match = { name = "WL-3" }
            role = "controller"
            """, home: home)
        let outer = try HeadlessSway(outputs: 1, width: 1600, height: 900)
        let nested = try NestedSway(inside: outer, outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: nested.environment, home: home)
        try app.waitForLog("controller moved from (none) to WL-1 (standing in")
        let preferred = try nested.createOutput()
        #expect(preferred == "WL-3")
        try app.waitForFirstFrame(on: "WL-3")
        #expect(!app.log.contains("controller moved from WL-1 to WL-3"))
        let status = try ControlClient(path: app.home + "/control.sock").exchange(line: #"{"method": "status"}"#)
        #expect(status.contains(#""controller":"WL-1""#), "\(status)")
        try nested.removeOutput("WL-1")
        try app.waitForLog("controller moved from WL-1 to WL-3")
        try nested.waitForScreenshot("WL-3", "the controller UI on WL-3") {
            $0.fraction(of: ReadmeClaimsTests.focusRing) > 0.001
        }
    }
}

/// Exit statuses that need a compositor to misbehave, which none here does on demand: a proxy between Multiscreen
/// and a real sway hides a global or injects a protocol error.
@Suite(.serialized) struct CompositorFaultTests {
    /// Exit 1 when a required global is missing, and the log names it. Seen failing: with `WaylandGlobals` not
    /// checking `xdg_wm_base`, Multiscreen did not exit 1 and the log did not name it.
    @Test func aMissingRequiredGlobalIsExitStatusOne() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let proxy = try WaylandProxy(upstream: sway.waylandSocketPath, hiding: "xdg_wm_base")
        let app = try MultiscreenProcess(
            environment: sway.environment.merging(["WAYLAND_DISPLAY": proxy.path]) { $1 })
        #expect(try app.process.waitForExit(timeout: 10) == 1, "\(app.log)")
        #expect(proxy.process.output.contains("hid a global"))
        #expect(app.log.contains("xdg_wm_base"), "the missing global is named: \(app.log)")
        #expect(!app.log.contains("first frame committed"))
    }

    /// Exit 4 on a protocol error, end to end through `multiscreen run`: the log names the interface, object id
    /// and code. Seen failing: with `WaylandDisplay.currentError` not recognising EPROTO, the status was not 4.
    @Test func aProtocolErrorIsExitStatusFour() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let proxy = try WaylandProxy(upstream: sway.waylandSocketPath)
        let app = try MultiscreenProcess(
            environment: sway.environment.merging(["WAYLAND_DISPLAY": proxy.path]) { $1 })
        try app.waitForFirstFrame(on: "HEADLESS-1")
        let object = try proxy.injectProtocolError(on: "xdg_wm_base", code: 6)
        #expect(try app.process.waitForExit(timeout: 5) == 4, "\(app.log)")
        #expect(
            app.log.contains("protocol error from the compositor: interface xdg_wm_base, object \(object), code 6"),
            "\(app.log)")
    }
}
