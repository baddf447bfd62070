import CompositorHarness
import Foundation
import Outputs
import Testing

/// Issue 10: on a software renderer the controller is drawn once into shared `wl_shm` frames, and every mirror shows
/// the same frame through its own `wl_buffer`, scaled and letterboxed by the compositor (`wp_viewporter`, a
/// subsurface over a black background). Checked on pixels, on sway and on weston, and on the buffer accounting
/// that `status` reports.
@Suite(.serialized) struct SharedMirrorTests {
    static let black = RGBColor(hex: 0x00_00_00)

    /// Mirror rules for `names`.
    static func mirrorRules(_ names: [String]) -> String {
        names.map { "[[rule]]\nmatch = { name = \"\($0)\" }\nrole = \"external\"\ncontent = \"mirror\"\n" }
            .joined(separator: "\n")
    }

    /// The fraction of `picture`'s pixels that show `controller` scaled to `picture`'s size: each pixel is compared
    /// with the controller's pixels around the point it maps to (3×3, so the compositor's filtering of edges and
    /// the rounding of the mapping do not count as differences), within `tolerance` per channel.
    static func fractionShowing(_ controller: Screenshot, in picture: Screenshot, tolerance: Int = 24) -> Double {
        guard picture.width > 0, picture.height > 0 else { return 0 }
        let sx = Double(controller.width) / Double(picture.width)
        let sy = Double(controller.height) / Double(picture.height)
        var matching = 0
        for y in 0..<picture.height {
            for x in 0..<picture.width {
                let pixel = picture.pixel(x: x, y: y)
                let cx = Int((Double(x) + 0.5) * sx)
                let cy = Int((Double(y) + 0.5) * sy)
                search: for dy in -1...1 {
                    for dx in -1...1 {
                        let px = min(max(cx + dx, 0), controller.width - 1)
                        let py = min(max(cy + dy, 0), controller.height - 1)
                        if controller.pixel(x: px, y: py).distance(to: pixel) <= tolerance {
                            matching += 1
                            break search
                        }
                    }
                }
            }
        }
        return Double(matching) / Double(picture.width * picture.height)
    }

    /// `status --json` as a dictionary.
    static func status(_ app: MultiscreenProcess) throws -> [String: Any] {
        let reply = try app.request(#"{"method": "status"}"#)
        let json = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
        return json?["result"] as? [String: Any] ?? [:]
    }

    static func framePaths(_ status: [String: Any]) -> [String: String] {
        let screens = status["screens"] as? [[String: Any]] ?? []
        return Dictionary(
            screens.compactMap { s in (s["name"] as? String).map { ($0, s["framePath"] as? String ?? "") } }
        ) { a, _ in a }
    }

    /// A mirror of the controller's size equals the controller; one on a square output is the controller scaled to
    /// its width with black bars above and below. Live: a message in the controller's log shows on both mirrors.
    @Test func mirrorsOnSwayShowTheControllerScaledAndLetterboxed() throws {
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(Self.mirrorRules(["HEADLESS-2", "HEADLESS-3"]), home: home)
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 360)
        try sway.setMode("HEADLESS-3", width: 360, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForScreens(3)
        try app.waitForLog("mirror path: shared-buffer")
        try app.waitForLog("HEADLESS-2: frames egl → shared-buffer-mirror")
        try app.waitForLog("HEADLESS-3: frames egl → shared-buffer-mirror")
        let paths = Self.framePaths(try Self.status(app))
        #expect(paths["HEADLESS-1"] == "shared-buffer")
        #expect(paths["HEADLESS-2"] == "shared-buffer-mirror" && paths["HEADLESS-3"] == "shared-buffer-mirror")
        #expect((try Self.status(app)["mirror"] as? [String: Any])?["path"] as? String == "shared-buffer")

        var previous: Screenshot?
        for round in 0..<2 {
            if round == 1 { _ = try app.request(#"{"method": "send", "params": {"text": "seen on the mirrors"}}"#) }
            // The controller's picture of this round (after the message: one that differs from the last round's).
            let controller: Screenshot
            do {
                controller = try sway.waitForScreenshot("HEADLESS-1", "the controller UI (round \(round))") { shot in
                    shot.fraction(of: ControllerTests.focusRing) > 0.001
                        && (previous.map { shot.fraction(differingFrom: $0) > 0.001 } ?? true)
                }
            } catch {
                throw HarnessError("\(error)\n--- multiscreen log ---\n\(app.log)")
            }
            previous = controller
            // The same size: the same pixels (the compositor copies the shared frame 1:1).
            try sway.waitForScreenshot("HEADLESS-2", "HEADLESS-2 equal to the controller (round \(round))") {
                $0.fraction(differingFrom: controller) < 0.002
            }
            // 640×360 into 360×360: the picture is 360×202.5 at y 78.75, black above and below.
            try sway.waitForScreenshot("HEADLESS-3", "HEADLESS-3: the controller scaled, letterboxed (round \(round))")
            {
                let top = $0.region(x: 0, y: 0, width: 360, height: 77)
                let bottom = $0.region(x: 0, y: 283, width: 360, height: 77)
                let picture = $0.region(x: 0, y: 80, width: 360, height: 200)
                let expected = controller.region(x: 0, y: 2, width: 640, height: 356)
                return top.fraction(of: Self.black) > 0.999 && bottom.fraction(of: Self.black) > 0.999
                    && Self.fractionShowing(expected, in: picture) > 0.97
            }
        }
        #expect(app.process.isRunning)
        #expect(!app.log.contains("protocol error"))
    }

    /// A mirror's output changing mode, scale and transform at run time: the mirror follows (letterboxed when the
    /// aspect ratio differs), with no protocol error.
    @Test func aMirrorFollowsModeScaleAndTransformChanges() throws {
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(Self.mirrorRules(["HEADLESS-2"]), home: home)
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForScreens(2)
        let controller = try sway.waitForScreenshot("HEADLESS-1", "the controller UI") {
            $0.fraction(of: ControllerTests.focusRing) > 0.001
        }
        func letterboxed(_ shot: Screenshot) -> Bool {
            // 640×360 into a square: bars of 78 px above and below, the picture between.
            let side = shot.width
            let bar = side * 77 / 360
            let top = shot.region(x: 0, y: 0, width: side, height: bar)
            let bottom = shot.region(x: 0, y: side - bar, width: side, height: bar)
            let picture = shot.region(x: 0, y: side * 80 / 360, width: side, height: side * 200 / 360)
            return shot.height == side && top.fraction(of: Self.black) > 0.999
                && bottom.fraction(of: Self.black) > 0.999
                && Self.fractionShowing(controller.region(x: 0, y: 2, width: 640, height: 356), in: picture) > 0.95
        }
        try sway.setMode("HEADLESS-2", width: 360, height: 360)
        try sway.waitForScreenshot("HEADLESS-2", "letterboxed after the mode change", where: letterboxed)
        // Scale 2: logical 180×180, the same 360×360 pixels.
        try sway.setScale("HEADLESS-2", 2)
        try sway.waitForScreenshot("HEADLESS-2", "letterboxed at scale 2", where: letterboxed)
        try sway.setScale("HEADLESS-2", 1)
        // Rotated: 640×360 becomes a 360×640 portrait output, the picture 360×202 with bars of 219 px.
        try sway.setMode("HEADLESS-2", width: 640, height: 360)
        try sway.setTransform("HEADLESS-2", "90")
        try sway.waitForScreenshot("HEADLESS-2", "a portrait mirror, bars above and below") { shot in
            let portrait = shot.height > shot.width
            let top = shot.region(x: 0, y: 0, width: shot.width, height: shot.height * 200 / 640)
            return portrait && top.fraction(of: Self.black) > 0.999
                && shot.fraction(of: expectedBackground(0), tolerance: 2) > 0.1
        }
        #expect(Self.framePaths(try Self.status(app))["HEADLESS-2"] == "shared-buffer-mirror")
        #expect(app.process.isRunning)
        #expect(!app.log.contains("protocol error"))
    }

    /// The same on weston (nested in a headless sway for its two outputs): a mirror of another aspect ratio shows the
    /// controller scaled, with black bars.
    @Test func aMirrorOnWestonShowsTheControllerScaledAndLetterboxed() throws {
        let outer = try HeadlessSway(outputs: 1, width: 1280, height: 720)
        let weston = try NestedWeston(inside: outer, sizes: [(640, 360), (360, 360)])
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(Self.mirrorRules(["WL2"]), home: home)
        let app = try MultiscreenProcess(environment: weston.environment, home: home)
        try app.waitForScreens(2)
        try app.waitForLog("WL2: frames egl → shared-buffer-mirror")
        var last: Screenshot?
        do {
            try waitUntil(timeout: 15, "weston showing the controller and its letterboxed mirror") {
                let controller = try weston.screenshot(output: 0)
                let mirror = try weston.screenshot(output: 1)
                last = mirror
                guard controller.fraction(of: ControllerTests.focusRing) > 0.001 else { return false }
                let top = mirror.region(x: 0, y: 0, width: 360, height: 77)
                let bottom = mirror.region(x: 0, y: 283, width: 360, height: 77)
                let picture = mirror.region(x: 0, y: 80, width: 360, height: 200)
                let expected = controller.region(x: 0, y: 2, width: 640, height: 356)
                return top.fraction(of: Self.black) > 0.999 && bottom.fraction(of: Self.black) > 0.999
                    && Self.fractionShowing(expected, in: picture) > 0.97
            }
        } catch {
            if let last { try? last.writePNG(to: app.home + "/weston-mirror.png") }
            throw error
        }
        #expect(app.process.isRunning)
    }

    /// Buffer accounting: 100 updates of the controller and 20 mirrors plugged in and out (nested sway) leave the
    /// shared frames, their `wl_buffer`s and their memory bounded, with no protocol error (a debug build also stops
    /// on any write into a frame the compositor holds).
    @Test func sharedBuffersStayBoundedAcrossUpdatesAndHotplugs() throws {
        let outer = try HeadlessSway(outputs: 1, width: 1280, height: 720)
        let nested = try NestedSway(inside: outer, outputs: 1, width: 320, height: 180)
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            "[[rule]]\nmatch = { name = \"WL-1\" }\nrole = \"controller\"\n\n" + Self.mirrorRules(["WL-*"]), home: home)
        let app = try MultiscreenProcess(environment: nested.environment, home: home)
        try app.waitForFirstFrame(on: "WL-1")
        let frameBytes = 320 * 180 * 4
        func mirrorCounters() throws -> [String: Int] {
            (try Self.status(app)["mirror"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
        }
        func checkBounded(_ when: String, surfaces: Int) throws {
            let counters = try mirrorCounters()
            let frames = counters["frames"] ?? .max
            #expect(frames <= 4, "\(when): \(counters)")
            // At most one buffer per frame and surface, and a black one per mirror.
            #expect((counters["buffers"] ?? .max) <= frames * surfaces + surfaces, "\(when): \(counters)")
            #expect((counters["bytes"] ?? .max) <= 4 * frameBytes + 4 * surfaces, "\(when): \(counters)")
        }
        for update in 1...100 {
            _ = try app.request(#"{"method": "send", "params": {"text": "update \#(update)"}}"#)
            if update % 10 == 0 { try app.waitForLog("render pass") }
        }
        try checkBounded("after 100 updates", surfaces: 1)
        var buffersAfterFirstCycle: Int?
        for cycle in 1...20 {
            let name = try nested.createOutput()
            try app.waitForLog("\(name): frames egl → shared-buffer-mirror")
            try app.waitForFirstFrame(on: "\(name)")
            _ = try app.request(#"{"method": "send", "params": {"text": "cycle \#(cycle)"}}"#)
            try checkBounded("cycle \(cycle), mirror on", surfaces: 2)
            try nested.removeOutput(name)
            try app.waitForLog("screen closed: \(name)")
            _ = try app.request(#"{"method": "send", "params": {"text": "cycle \#(cycle) gone"}}"#)
            // The removed mirror's buffers go when the compositor releases them: wait for that.
            var buffers = Int.max
            try waitUntil(timeout: 5, "cycle \(cycle): the removed mirror's buffers released") {
                buffers = try mirrorCounters()["buffers"] ?? .max
                return buffers <= (try mirrorCounters()["frames"] ?? 0) + 1
            }
            if buffersAfterFirstCycle == nil { buffersAfterFirstCycle = buffers }
            #expect(buffers <= buffersAfterFirstCycle! + 1, "cycle \(cycle): \(buffers) buffers")
        }
        try checkBounded("after 20 hotplugs", surfaces: 1)
        #expect(app.process.isRunning)
        #expect(!app.log.contains("protocol error"))
    }

    /// Mirrors whose outputs stop presenting keep the frame they last showed: the controller still finds a frame to
    /// draw into and shows every message at once (three hidden mirrors, each holding a different frame).
    @Test func hiddenMirrorsDoNotStallTheController() throws {
        let outer = try HeadlessSway(outputs: 1, width: 1280, height: 720)
        let nested = try NestedSway(inside: outer, outputs: 4, width: 320, height: 180)
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            "[[rule]]\nmatch = { name = \"WL-1\" }\nrole = \"controller\"\n\n" + Self.mirrorRules(["WL-*"]), home: home)
        let app = try MultiscreenProcess(environment: nested.environment, home: home)
        try app.waitForScreens(4)
        var number = 0
        for hidden in ["WL-2", "WL-3", "WL-4"] {
            try nested.hideOutput(hidden)
            for _ in 0..<3 {
                number += 1
                _ = try app.request(#"{"method": "send", "params": {"text": "while \#(hidden) is hidden"}}"#)
                // Well before the health check (2 s) would recreate the hidden windows and free their frames.
                try app.waitForLog("latency: message #\(number) on WL-1 committed", timeout: 1)
            }
        }
        let mirror = (try Self.status(app)["mirror"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
        #expect((mirror["frames"] ?? .max) <= 6, "\(mirror)")
        #expect(app.process.isRunning)
    }

    /// The controller and its mirrors never call `eglSwapBuffers`, so a compositor that stops reading (SIGSTOP)
    /// cannot block the display thread inside Mesa: with every screen drawing at once (`--pacing immediate`), 30
    /// messages and a `status` are still answered while sway is stopped. Seen failing with `--mirror copy` (the
    /// texture copy, EGL on every screen): the display thread hung in `eglSwapBuffers` after two messages.
    @Test func aStoppedCompositorDoesNotBlockTheDisplayThread() throws {
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(Self.mirrorRules(["HEADLESS-2", "HEADLESS-3"]), home: home)
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 360)
        let app = try MultiscreenProcess(
            environment: sway.environment, arguments: ["run", "--pacing", "immediate"], home: home)
        try app.waitForScreens(3)
        sway.signal(SIGSTOP)
        defer { sway.signal(SIGCONT) }
        for number in 1...30 {
            let sent = try app.command(["send", "while stopped \(number)"])
            #expect(sent.status == 0, "message \(number): \(sent.output)")
            if sent.status != 0 { break }
        }
        #expect(try app.command(["status"]).status == 0)
        sway.signal(SIGCONT)
        try app.waitForLog("message #30 ")
        #expect(app.process.isRunning)
    }

    /// Without `wp_viewporter` (hidden by a proxy) the mirror keeps the texture copy, and says so in the log and in
    /// `status`.
    @Test func withoutViewporterMirrorsKeepTheTextureCopy() throws {
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(Self.mirrorRules(["HEADLESS-2"]), home: home)
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 180)
        let proxy = try WaylandProxy(upstream: sway.waylandSocketPath, hiding: "wp_viewporter")
        let app = try MultiscreenProcess(
            environment: sway.environment.merging(["WAYLAND_DISPLAY": proxy.path]) { $1 }, home: home)
        try app.waitForScreens(2)
        try app.waitForLog("mirror path: texture-copy (the compositor offers no wp_viewporter)")
        let status = try Self.status(app)
        #expect((status["mirror"] as? [String: Any])?["path"] as? String == "texture-copy")
        #expect(Self.framePaths(status)["HEADLESS-2"] == "egl-texture-copy")
        #expect(Self.framePaths(status)["HEADLESS-1"] == "egl")
        #expect(proxy.process.output.contains("hid a global"))
        try sway.waitForScreenshot("HEADLESS-2", "the mirror by texture copy") { mirror in
            guard let controller = try? sway.screenshot("HEADLESS-1") else { return false }
            return mirror.fraction(of: ControllerTests.focusRing) > 0.001
                && mirror.fraction(differingFrom: controller) < 0.05
        }
    }
}
