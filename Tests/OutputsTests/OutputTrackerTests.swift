import Testing

@testable import Outputs

@Suite struct OutputTrackerTests {
    private func describeV4(_ tracker: inout OutputTracker, _ id: UInt32, name: String, width: Int32 = 640)
        -> OutputChange?
    {
        _ = tracker.handle(
            .geometry(x: 0, y: 0, physicalWidth: 300, physicalHeight: 200, make: "ACME", model: "Panel", transform: 0),
            registryName: id)
        _ = tracker.handle(.mode(width: width, height: 360, refresh: 60000), registryName: id)
        _ = tracker.handle(.scale(1), registryName: id)
        _ = tracker.handle(.name(name), registryName: id)
        _ = tracker.handle(.description("desc \(name)"), registryName: id)
        return tracker.handle(.done, registryName: id)
    }

    @Test func outputAppearsOnlyAtDone() {
        var tracker = OutputTracker()
        tracker.begin(registryName: 7, waitsForXDGOutput: false)
        #expect(tracker.handle(.mode(width: 640, height: 360, refresh: 60000), registryName: 7) == nil)
        #expect(tracker.outputs.isEmpty)
        let change = tracker.handle(.done, registryName: 7)
        guard case .added(let info) = change else {
            Issue.record("expected added, got \(String(describing: change))")
            return
        }
        #expect(info.modeWidth == 640)
        #expect(tracker.count == 1)
    }

    @Test func changesAreAtomicAtDone() {
        var tracker = OutputTracker()
        tracker.begin(registryName: 1, waitsForXDGOutput: false)
        _ = describeV4(&tracker, 1, name: "DP-1")
        _ = tracker.handle(.mode(width: 800, height: 600, refresh: 75000), registryName: 1)
        #expect(tracker[1]?.modeWidth == 640, "pending values are invisible before done")
        let change = tracker.handle(.done, registryName: 1)
        guard case .changed(let old, let new) = change else {
            Issue.record("expected changed, got \(String(describing: change))")
            return
        }
        #expect(old.modeWidth == 640)
        #expect(new.modeWidth == 800 && new.refreshMilliHertz == 75000)
    }

    @Test func doneWithoutChangeReportsNothing() {
        var tracker = OutputTracker()
        tracker.begin(registryName: 1, waitsForXDGOutput: false)
        _ = describeV4(&tracker, 1, name: "DP-1")
        #expect(tracker.handle(.done, registryName: 1) == nil)
    }

    @Test func waitsForXDGOutputOnVersion3Compositors() {
        // weston 10: wl_output v3 has no name; the name comes from xdg_output, then wl_output.done (xdg-output v3).
        var tracker = OutputTracker()
        tracker.begin(registryName: 3, waitsForXDGOutput: true)
        _ = tracker.handle(.mode(width: 1024, height: 768, refresh: 60000), registryName: 3)
        #expect(tracker.handle(.done, registryName: 3) == nil, "held back until xdg_output described it")
        _ = tracker.handle(.xdgName("headless"), registryName: 3)
        _ = tracker.handle(.logicalSize(width: 1024, height: 768), registryName: 3)
        let change = tracker.handle(.done, registryName: 3)
        guard case .added(let info) = change else {
            Issue.record("expected added, got \(String(describing: change))")
            return
        }
        #expect(info.name == "headless")
    }

    @Test func xdgOutputVersion2UsesItsOwnDone() {
        var tracker = OutputTracker()
        tracker.begin(registryName: 3, waitsForXDGOutput: true)
        _ = describeV4(&tracker, 3, name: "HDMI-A-1")
        _ = tracker.handle(.logicalPosition(x: 10, y: 20), registryName: 3)
        guard case .added(let info) = tracker.handle(.xdgDone, registryName: 3) else {
            Issue.record("xdg_output.done must complete the output")
            return
        }
        #expect(info.logicalX == 10 && info.logicalY == 20)
    }

    @Test func removalReportsTheLastKnownState() {
        var tracker = OutputTracker()
        tracker.begin(registryName: 1, waitsForXDGOutput: false)
        _ = describeV4(&tracker, 1, name: "DP-1")
        let before = tracker.outputs.first!
        #expect(tracker.remove(registryName: 1) == .removed(before))
        #expect(tracker.outputs.isEmpty)
        #expect(tracker.remove(registryName: 1) == nil, "removing twice is harmless")
    }

    @Test func incompleteOutputRemovedSilently() {
        var tracker = OutputTracker()
        tracker.begin(registryName: 9, waitsForXDGOutput: false)
        #expect(tracker.remove(registryName: 9) == nil)
    }

    @Test func eventsForUnknownOutputsAreIgnored() {
        var tracker = OutputTracker()
        #expect(tracker.handle(.done, registryName: 42) == nil)
        #expect(tracker.outputs.isEmpty)
    }

    @Test func outputsAreInNaturalNameOrder() {
        var tracker = OutputTracker()
        for (id, name) in [(1 as UInt32, "HEADLESS-10"), (2, "HEADLESS-2"), (3, "HEADLESS-1")] {
            tracker.begin(registryName: id, waitsForXDGOutput: false)
            _ = describeV4(&tracker, id, name: name)
        }
        #expect(tracker.outputs.map(\.displayName) == ["HEADLESS-1", "HEADLESS-2", "HEADLESS-10"])
    }

    /// The order is kept as outputs change and go, not worked out when read.
    @Test func orderFollowsChangesAndRemovals() {
        var tracker = OutputTracker()
        for (id, name) in [(1 as UInt32, "HEADLESS-10"), (2, "HEADLESS-2"), (3, "HEADLESS-1")] {
            tracker.begin(registryName: id, waitsForXDGOutput: false)
            _ = describeV4(&tracker, id, name: name)
        }
        _ = tracker.handle(.name("HEADLESS-3"), registryName: 1)
        #expect(tracker.outputs.map(\.displayName) == ["HEADLESS-1", "HEADLESS-2", "HEADLESS-10"], "not before done")
        _ = tracker.handle(.done, registryName: 1)
        #expect(tracker.outputs.map(\.displayName) == ["HEADLESS-1", "HEADLESS-2", "HEADLESS-3"])
        _ = tracker.remove(registryName: 2)
        #expect(tracker.outputs.map(\.displayName) == ["HEADLESS-1", "HEADLESS-3"])
        #expect(tracker.count == 2)
        tracker.begin(registryName: 4, waitsForXDGOutput: false)
        #expect(tracker.count == 2, "an output is counted once complete")
    }

    @Test func zeroOutputsIsANormalState() {
        var tracker = OutputTracker()
        tracker.begin(registryName: 1, waitsForXDGOutput: false)
        _ = describeV4(&tracker, 1, name: "DP-1")
        _ = tracker.remove(registryName: 1)
        #expect(tracker.count == 0)
        tracker.begin(registryName: 2, waitsForXDGOutput: false)
        guard case .added = describeV4(&tracker, 2, name: "DP-2") else {
            Issue.record("a new output after zero must be added")
            return
        }
    }
}
