import CompositorHarness
import Testing
import Wayland

@Suite struct RegistryTests {
    /// A handler that captures its registry (as `OutputSnapshot.take` does) must not keep it alive after `destroy`:
    /// LeakSanitizer found that cycle in `multiscreen outputs` (scripts/sanitizers).
    @Test func destroyReleasesWhatTheHandlersCaptured() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let display = try WaylandDisplay(name: sway.waylandSocketPath)
        weak var released: Registry?
        do {
            let registry = Registry(display: display)
            var seen = 0
            registry.onGlobal = { _, _, _ in seen += registry.globals.count }
            registry.onGlobalRemove = { _ in _ = registry.proxy }
            try display.roundtrip()
            #expect(seen > 0)
            registry.destroy()
            released = registry
        }
        #expect(released == nil, "the registry outlived its owner through its own handlers")
        display.disconnect()
    }
}
