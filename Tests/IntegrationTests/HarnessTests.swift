import CompositorHarness
import Foundation
import Outputs
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Proves the harness itself against real compositors: if these fail, no integration test result means anything.
///
/// Each test starts its own compositor in its own runtime directory; `defer { stop() }` plus `deinit` make sure it
/// is gone even when an expectation throws.
@Suite("CompositorHarness")
struct HarnessTests {
    static let background = RGBColor(hex: 0x112233)
    static let backgroundConfig = "output * bg #112233 solid_color"

    @Test("headless sway: two outputs of the asked size, showing the configured background")
    func headlessSwayOutputsAndBackground() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240, extraConfig: Self.backgroundConfig)
        defer { sway.stop() }
        let outputs = try sway.outputs()
        #expect(outputs.map(\.name).sorted() == ["HEADLESS-1", "HEADLESS-2"])
        for output in outputs {
            #expect(output.mode.width == 320 && output.mode.height == 240, "\(output)")
            #expect(output.scale == 1 && output.active)
        }
        for output in outputs {
            // swaybg starts after sway and draws a frame later: wait for the colour rather than sleeping.
            let shot = try sway.waitForScreenshot(output.name, "the #112233 background") {
                $0.fraction(of: Self.background) > 0.99
            }
            #expect(shot.width == 320 && shot.height == 240)
            #expect(shot.dominantColor() == Self.background)
            #expect(shot.pixel(x: 319, y: 239) == Self.background)
        }
        let environment = sway.environment
        #expect(environment["WAYLAND_DISPLAY"] != nil && environment["SWAYSOCK"] != nil)
        #expect(environment["XDG_RUNTIME_DIR"] == sway.runtimeDirectory)
    }

    @Test("headless sway: createOutput adds an output; setMode and setScale change it")
    func headlessSwayReconfiguration() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240, extraConfig: Self.backgroundConfig)
        defer { sway.stop() }
        let created = try sway.createOutput()
        #expect(created == "HEADLESS-2")
        #expect(try sway.outputs().map(\.name).sorted() == ["HEADLESS-1", "HEADLESS-2"])
        #expect(try sway.outputs().first { $0.name == created }?.mode.width == 320)

        try sway.setMode(created, width: 400, height: 300)
        let output = try #require(try sway.outputs().first { $0.name == created })
        #expect(output.mode.width == 400 && output.mode.height == 300)
        #expect(output.rect.width == 400 && output.rect.height == 300)
        try sway.waitForScreenshot(created, "a 400×300 frame with the background") {
            $0.width == 400 && $0.height == 300 && $0.fraction(of: Self.background) > 0.99
        }

        try sway.setScale(created, 2)
        let scaled = try #require(try sway.outputs().first { $0.name == created })
        #expect(scaled.scale == 2)
        #expect(scaled.rect.width == 200 && scaled.rect.height == 150)
    }

    @Test("headless sway: windows() lists a client window with its output and size")
    func headlessSwayWindows() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        defer { sway.stop() }
        #expect(try sway.windows().isEmpty)
        // A nested sway is a convenient real xdg-toplevel client with a known title.
        let nested = try NestedSway(inside: sway, outputs: 1, width: 200, height: 100)
        defer { nested.stop() }
        let window = try sway.waitForWindow { $0.title == "wlroots - WL-1" }
        #expect(window.appID == "wlroots")
        #expect(window.output == "HEADLESS-1")
        #expect(window.pid == nested.pid)
        #expect(window.isFloating)
        #expect(window.rect.width == 200 && window.rect.height == 100)
    }

    @Test("errors name the failing command and carry the compositor's answer")
    func errorsArePrecise() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        defer { sway.stop() }
        let error = try #require(throws: HarnessError.self) { try sway.setMode("NO-SUCH-OUTPUT", width: 1, height: 1) }
        #expect(error.description.contains("has no output NO-SUCH-OUTPUT (it has HEADLESS-1)"))
        let rejected = try #require(throws: HarnessError.self) { try sway.swaymsg("output", "HEADLESS-1", "bogus") }
        #expect(rejected.description.contains("swaymsg output HEADLESS-1 bogus failed"))
        #expect(throws: HarnessError.self) { try sway.screenshot("NO-SUCH-OUTPUT") }
    }

    @Test("stop() kills and reaps every process of the compositor, and removes its runtime directory")
    func stopLeavesNothingBehind() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240, extraConfig: Self.backgroundConfig)
        // sway double-forks swaybg: wait until it is there, so the check covers a process outside sway's children.
        try waitUntil(timeout: 10, "swaybg to start") { sway.processIDs.count >= 2 }
        let pids = sway.processIDs
        let directory = sway.runtimeDirectory
        sway.stop()
        for pid in pids {
            // A zombie still has a /proc entry: its absence proves the process was also reaped.
            #expect(access("/proc/\(pid)", F_OK) != 0, "process \(pid) survived stop()")
        }
        #expect(access(directory, F_OK) != 0, "runtime directory survived stop()")
        sway.stop()  // idempotent
    }

    @Test("nested sway: outputs are windows of the outer sway that can be created, resized and removed")
    func nestedSwayHotplug() throws {
        let outer = try HeadlessSway(outputs: 1, width: 800, height: 600)
        defer { outer.stop() }
        let nested = try NestedSway(
            inside: outer, outputs: 2, width: 320, height: 240, extraConfig: "output * bg #445566 solid_color")
        defer { nested.stop() }
        #expect(try nested.outputs().map(\.name).sorted() == ["WL-1", "WL-2"])
        for output in try nested.outputs() {
            #expect(output.mode.width == 320 && output.mode.height == 240, "\(output)")
        }
        try nested.waitForScreenshot("WL-2", "the nested background") {
            $0.width == 320 && $0.fraction(of: RGBColor(hex: 0x445566)) > 0.99
        }

        let created = try nested.createOutput()
        #expect(created == "WL-3")
        #expect(try nested.outputs().count == 3)

        try nested.resizeOutput("WL-1", width: 200, height: 150)
        #expect(try nested.outputs().first { $0.name == "WL-1" }?.mode.width == 200)

        try nested.removeOutput("WL-2")
        #expect(try nested.outputs().map(\.name).sorted() == ["WL-1", "WL-3"])
        #expect(try !outer.windows().contains { $0.title == "wlroots - WL-2" })

        let pids = nested.processIDs
        nested.stop()
        for pid in pids {
            #expect(access("/proc/\(pid)", F_OK) != 0, "nested process \(pid) survived stop()")
        }
        #expect(try outer.outputs().count == 1, "the outer sway keeps running")
    }

    @Test("weston: starts headless, a client sees its wl_output, screenshots work")
    func westonClient() throws {
        let weston = try Weston(width: 320, height: 240, shell: "kiosk-shell.so")
        defer { weston.stop() }
        let info = try ChildProcess("wayland-info", [], environment: weston.environment)
        #expect(try info.waitForExit(timeout: 10) == 0)
        #expect(info.output.contains("'wl_output'"))

        let outputs = try weston.outputs()
        #expect(outputs.count == 1)
        #expect(outputs.first?.mode.width == 320 && outputs.first?.mode.height == 240)
        #expect(outputs.first?.name == "headless")

        let shot = try weston.screenshot()
        #expect(shot.width == 320 && shot.height == 240)
        let pids = weston.processIDs
        weston.stop()
        for pid in pids {
            #expect(access("/proc/\(pid)", F_OK) != 0, "weston process \(pid) survived stop()")
        }
    }

    @Test("ChildProcess: captures lines, reports exit status, kills its whole group")
    func childProcess() throws {
        let echo = try ChildProcess("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(try echo.waitForExit(timeout: 10) == 3)
        #expect(echo.standardOutput == "out")
        #expect(echo.standardError == "err")
        #expect(try echo.waitForLine(containing: "er", timeout: 1) == "err")

        // A shell with a background grandchild: kill() must take both.
        let tree = try ChildProcess("/bin/sh", ["-c", "sleep 1000 & echo child $!; wait"])
        let line = try tree.waitForLine(containing: "child", timeout: 10)
        let grandchild = try #require(pid_t(line.split(separator: " ")[1]))
        #expect(tree.openFileDescriptorCount >= 3)
        #expect(tree.residentSetBytes > 0)
        tree.kill()
        #expect(access("/proc/\(tree.pid)", F_OK) != 0)
        #expect(access("/proc/\(grandchild)", F_OK) != 0)
        #expect(tree.exitStatus == 128 + SIGTERM)

        #expect(throws: HarnessError.self) { try ChildProcess("no-such-program-anywhere", []) }
        let silent = try ChildProcess("/bin/true", [])
        #expect(throws: HarnessError.self) { try silent.waitForLine(containing: "never", timeout: 10) }
    }

    @Test("ChildProcess: context switches are counted only for the same live process, else an error")
    func contextSwitchesNeedTheSameLiveProcess() throws {
        // Asleep throughout (once it has finished starting, which on a loaded machine takes a while): no switches,
        // and a reading at all.
        let sleeper = try ChildProcess("sleep", ["600"])
        try sleeper.waitUntilQuiet()
        #expect(try sleeper.contextSwitches(during: 0.2) == 0)
        #expect(try sleeper.activity().executable.hasSuffix("/sleep"))

        // Gone before the window ends, or before it starts: an error, never "0 switches".
        let brief = try ChildProcess("sleep", ["0.1"])
        #expect(throws: HarnessError.self) { _ = try brief.contextSwitches(during: 1.0) }
        let exited = try ChildProcess("/bin/true", [])
        _ = try exited.waitForExit(timeout: 10)
        #expect(throws: HarnessError.self) { try exited.activity() }
        #expect(throws: HarnessError.self) { try exited.waitUntilQuiet() }

        // Replaced by exec during the window, same PID: an error too.
        let flag = NSTemporaryDirectory() + "exec-now-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: flag) }
        let shell = try ChildProcess(
            "/bin/sh", ["-c", "while [ ! -e '\(flag)' ]; do sleep 0.05; done; exec sleep 600"])
        let start = try shell.activity()
        #expect(FileManager.default.createFile(atPath: flag, contents: nil))
        try waitUntil(timeout: 10, "the shell to exec sleep") {
            (try? shell.activity().executable.hasSuffix("/sleep")) == true
        }
        let replaced = #expect(throws: HarnessError.self) { _ = try shell.contextSwitches(since: start) }
        #expect(replaced?.message.contains("replaced itself") == true, "\(String(describing: replaced))")
    }

    @Test("screenshots: PNG written by the harness and by grim decode to the same pixels as grim's PPM")
    func pngRoundTrip() throws {
        var pixels: [UInt8] = []
        for y in 0..<37 {
            for x in 0..<53 { pixels += [UInt8(x * 4), UInt8(y * 6), UInt8((x + y) % 256)] }
        }
        let image = Screenshot(width: 53, height: 37, pixels: pixels)
        let path = NSTemporaryDirectory() + "harness-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try image.writePNG(to: path)
        #expect(try Screenshot(contentsOfFile: path) == image)
        // pngData() and writePNG(to:) both go through libpng's encoder; the bytes read back the same.
        let data = image.pngData()
        #expect(data.starts(with: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
        #expect(FileManager.default.createFile(atPath: path, contents: Data(data)))
        #expect(try Screenshot(contentsOfFile: path) == image)

        // Broken PNGs and impossible writes fail with libpng's own message, not a crash.
        var truncated = data
        truncated.removeLast(data.count / 2)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(truncated)))
        let decodeError = #expect(throws: HarnessError.self) { try Screenshot(contentsOfFile: path) }
        #expect(decodeError?.message.contains("PNG") == true, "\(String(describing: decodeError))")
        let empty = Screenshot(width: 0, height: 0, pixels: [])
        #expect(throws: HarnessError.self) { try empty.writePNG(to: path) }
        let missingDirectory = NSTemporaryDirectory() + "no-such-directory-\(UUID().uuidString)/a.png"
        #expect(throws: HarnessError.self) { try image.writePNG(to: missingDirectory) }

        // grim writes its own compressed PNGs: decoding them gives the pixels of grim's PPM.
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240, extraConfig: Self.backgroundConfig)
        defer { sway.stop() }
        let ppm = try sway.waitForScreenshot("HEADLESS-1") { $0.fraction(of: Self.background) > 0.99 }
        try sway.screenshotPNG("HEADLESS-1", to: path)
        #expect(try Screenshot(contentsOfFile: path) == ppm)
    }
}
