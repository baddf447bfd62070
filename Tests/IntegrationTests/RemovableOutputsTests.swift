import CompositorHarness
import Foundation
import Testing

/// Outputs that go away: a nested sway, whose outputs are windows of an outer headless sway.
@Suite(.serialized) struct RemovableOutputsTests {
    @Test func aRemovedOutputTearsItsWindowDown() throws {
        let outer = try HeadlessSway(outputs: 1, width: 1280, height: 720)
        let nested = try NestedSway(inside: outer, outputs: 2, width: 400, height: 300)
        let app = try MultiscreenProcess(environment: nested.environment)
        try app.waitForLogCount("first frame committed on", count: 2)
        // Warm up one add/remove cycle so lazily created resources (caches, EGL internals) exist before counting.
        let warm = try nested.createOutput()
        try app.waitForLog("first frame committed on \(warm)")
        try nested.removeOutput(warm)
        try app.waitForLog("screen closed: \(warm)")
        let fdsBefore = app.process.openFileDescriptorCount

        for cycle in 0..<3 {
            let name = try nested.createOutput()
            try app.waitForLog("first frame committed on \(name)")
            try nested.removeOutput(name)
            try app.waitForLog("screen closed: \(name)")
            #expect(app.process.isRunning, "cycle \(cycle)")
        }
        try nested.removeOutput("WL-2")
        try app.waitForLog("screen closed: WL-2")
        #expect(app.process.isRunning)
        #expect(app.process.openFileDescriptorCount == fdsBefore, "fd count must not grow with hotplug")
        // The remaining screen still draws, now as the only one.
        try nested.waitForScreenshot("WL-1", "WL-1 still showing screen 1") { showsScreen($0, index: 0) }
        #expect(!app.log.contains("protocol error"))
    }

    @Test func allOutputsRemovedThenOneAdded() throws {
        let outer = try HeadlessSway(outputs: 1, width: 1280, height: 720)
        let nested = try NestedSway(inside: outer, outputs: 1, width: 400, height: 300)
        let app = try MultiscreenProcess(environment: nested.environment)
        try app.waitForLog("first frame committed on WL-1")
        try nested.removeOutput("WL-1")
        try app.waitForLog("no outputs: waiting for one")
        #expect(app.process.isRunning)
        let name = try nested.createOutput()
        try app.waitForLog("first frame committed on \(name)")
        try nested.waitForScreenshot(name, "\(name) showing screen 1") { showsScreen($0, index: 0) }
        #expect(app.process.isRunning)
    }

    @Test func aResizedNestedOutputRerenders() throws {
        let outer = try HeadlessSway(outputs: 1, width: 1280, height: 720)
        let nested = try NestedSway(inside: outer, outputs: 1, width: 400, height: 300)
        let app = try MultiscreenProcess(environment: nested.environment)
        try app.waitForLog("first frame committed on WL-1")
        try nested.resizeOutput("WL-1", width: 500, height: 320)
        try app.waitForLog("committed on WL-1: buffer 500x320 scale 1")
        try nested.waitForScreenshot("WL-1", "WL-1 at 500×320") {
            $0.width == 500 && $0.height == 320 && showsScreen($0, index: 0)
        }
    }
}
