import CompositorHarness
import Foundation
import Testing

/// Issue 28, item 1: external screens that show the same picture at the same size are drawn once; every other one
/// shows that frame through its own `wl_buffer` (`status` says `shared-buffer-identical`). Checked on pixels: the
/// screens stay exactly equal, a message for one screen parts it from the group, and a leader that goes away hands
/// over to another screen.
@Suite(.serialized) struct IdenticalScreensTests {
    static let externals = ["HEADLESS-2", "HEADLESS-3", "HEADLESS-4"]
    /// One background for every external screen (by default each has its own colour, which makes its picture its own).
    static let wall = "[theme]\nbackground = \"#102030\"\n"

    static func home() throws -> String {
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(Self.wall, home: home)
        return home
    }

    static func paths(_ app: MultiscreenProcess) throws -> [String: String] {
        SharedMirrorTests.framePaths(try SharedMirrorTests.status(app))
    }

    @Test func identicalScreensShowOneFrameAndAMessageForOnePartsIt() throws {
        let sway = try HeadlessSway(outputs: 4, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment, home: try Self.home())
        try app.waitForScreens(4)
        _ = try app.request(#"{"method": "send", "params": {"text": "Lunch at noon"}}"#)
        try ScreenText.waitFor("Lunch", on: "HEADLESS-4", in: sway)

        // One external screen draws, the two others show its frame; all three pictures are the same pixels.
        try waitUntil(timeout: 5, "one leader and two identical screens") {
            let paths = try Self.paths(app)
            return Self.externals.filter { paths[$0] == "shared-buffer" }.count == 1
                && Self.externals.filter { paths[$0] == "shared-buffer-identical" }.count == 2
        }
        let leader = try #require(Self.externals.first { (try? Self.paths(app))?[$0] == "shared-buffer" })
        let picture = try sway.screenshot(leader)
        for name in Self.externals {
            #expect(try sway.screenshot(name).fraction(differingFrom: picture) == 0, "\(name) equals \(leader)")
        }
        #expect(picture.fraction(differingFrom: try sway.screenshot("HEADLESS-1")) > 0.2, "not the controller")

        // A message for the leader alone: it draws its own picture (alone, on its EGL surface); the two others still
        // share one, drawn by one of them, and the next message for all reaches all three.
        let others = Self.externals.filter { $0 != leader }
        _ = try app.request(#"{"method": "send", "params": {"text": "Door closed", "screen": "\#(leader)"}}"#)
        try ScreenText.waitFor("Door", on: leader, in: sway)
        try waitUntil(timeout: 5, "\(leader) draws alone; \(others) share") {
            let paths = try Self.paths(app)
            return paths[leader] == "egl"
                && Set(others.map { paths[$0] }) == ["shared-buffer", "shared-buffer-identical"]
        }
        #expect(try sway.screenshot(others[1]).fraction(differingFrom: try sway.screenshot(others[0])) == 0)
        #expect(try sway.screenshot(leader).fraction(differingFrom: try sway.screenshot(others[0])) > 0.001)
        _ = try app.request(#"{"method": "send", "params": {"text": "Tour at three"}}"#)
        for name in Self.externals { try ScreenText.waitFor("Tour", on: name, in: sway) }
        #expect(try sway.screenshot(others[1]).fraction(differingFrom: try sway.screenshot(others[0])) == 0)

        // The same picture again everywhere (every message cleared): one group of three again.
        _ = try app.request(#"{"method": "messages.clear"}"#)
        try waitUntil(timeout: 5, "one group again") {
            let paths = try Self.paths(app)
            return Self.externals.filter { paths[$0] == "shared-buffer-identical" }.count == 2
        }
        #expect(!app.log.contains("protocol error"))
        #expect(app.process.isRunning)
    }

    /// The leader's output goes away: another screen draws the group's picture, and the next message reaches every
    /// remaining screen.
    @Test func whenTheLeaderGoesAnotherScreenDrawsThePicture() throws {
        let outer = try HeadlessSway(outputs: 1, width: 1600, height: 900)
        let nested = try NestedSway(inside: outer, outputs: 4, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: nested.environment, home: try Self.home())
        try app.waitForScreens(4)
        _ = try app.request(#"{"method": "send", "params": {"text": "first"}}"#)
        var leader = ""
        try waitUntil(timeout: 5, "a leader") {
            leader = try Self.paths(app).first { $0.value == "shared-buffer" && $0.key != "WL-1" }?.key ?? ""
            return !leader.isEmpty
        }
        try nested.removeOutput(leader)
        try app.waitForLog("screen closed: \(leader)")
        let reply = try app.request(#"{"method": "send", "params": {"text": "second"}}"#)
        let id = try #require(
            ((try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any])?["result"]
                as? [String: Any])?["id"] as? Int)
        let remaining = ["WL-2", "WL-3", "WL-4"].filter { $0 != leader }
        for name in remaining { _ = try app.waitForLog("latency: message #\(id) on \(name) committed") }
        let paths = try Self.paths(app)
        #expect(Set(remaining.map { paths[$0] }) == ["shared-buffer", "shared-buffer-identical"])
        #expect(!app.log.contains("protocol error"))
        #expect(app.process.isRunning)
    }
}

/// Issue 28, item 2: a frame that changes a few rows tells the compositor only those (`wl_surface.damage_buffer`),
/// read off the client's own protocol trace.
@Suite(.serialized) struct FrameDamageTests {
    @Test func aOneLineMessageDamagesOnlyItsRows() throws {
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 360)
        let app = try MultiscreenProcess(
            environment: sway.environment.merging(["WAYLAND_DEBUG": "1"]) { $1 }, home: try IdenticalScreensTests.home()
        )
        try app.waitForScreens(3)
        try app.process.waitUntilQuiet()
        let before = SurfaceBufferTrace(app.log).committed
        _ = try app.request(#"{"method": "send", "params": {"text": "Hi"}}"#)
        try ScreenText.waitFor("Hi", on: "HEADLESS-3", in: sway)
        try app.process.waitUntilQuiet()
        let after = SurfaceBufferTrace(app.log).committed
        for name in ["HEADLESS-2", "HEADLESS-3"] {
            let new = (after[name] ?? []).dropFirst(before[name]?.count ?? 0)
            // The first frame showing the message: the rows of its text and time, nothing above or below.
            let frame = try #require(new.first { !$0.damage.isEmpty }, "\(name) committed the message")
            let rows = try #require(frame.damage.first)
            #expect(frame.damage.count == 1 && rows.x == 0 && rows.width == 640, "\(name): \(frame.damage)")
            #expect(rows.y > 0 && rows.height > 10 && rows.height < 360 / 2, "\(name): \(frame.damage)")
        }
        // A frame that damages only rows is right only on a surface that showed the frame before it: the screenshot
        // shows the message and nothing of an older picture.
        #expect(try sway.screenshot("HEADLESS-2").fraction(differingFrom: try sway.screenshot("HEADLESS-3")) == 0)
        #expect(!app.log.contains("protocol error"))
    }
}
