import CompositorHarness
import Foundation
import MultiscreenApp
import Testing
import Wayland

/// How a Wayland fault becomes the process's exit status, against a real compositor.
@Suite(.serialized) struct ExitStatusTests {
    /// Connects the test process itself as a client of `sway`.
    private func connect(_ sway: HeadlessSway) throws -> (WaylandDisplay, Registry, WaylandGlobals) {
        let display = try WaylandDisplay(name: sway.waylandSocketPath)
        let registry = Registry(display: display)
        let globals = WaylandGlobals()
        registry.onGlobal = { name, interface, _ in globals.bindIfSingleton(registry, name: name, interface: interface)
        }
        try display.roundtrip()
        try globals.checkRequired()
        return (display, registry, globals)
    }

    @Test func aProtocolErrorNamesInterfaceObjectAndCode() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let (display, registry, globals) = try connect(sway)
        let window = ToplevelWindow(globals: globals, fullscreenOn: nil, appID: "test", title: "test")
        // wl_surface.set_buffer_scale(0): "If scale is not greater than 0 the invalid_scale protocol error is raised".
        window.setBufferScale(0)
        var caught: Error?
        do { try display.roundtrip() } catch { caught = error }
        guard case .protocolError(let interface, let objectID, let code)? = caught as? WaylandError else {
            Issue.record("expected a protocol error, got \(String(describing: caught))")
            return
        }
        #expect(interface == "wl_surface")
        #expect(objectID > 0)
        #expect(code == 0, "wl_surface.error.invalid_scale")
        #expect(ExitStatus(loopError: caught!) == .protocolError)
        #expect(ExitStatus(loopError: caught!).rawValue == 4)
        withExtendedLifetime((registry, window)) {}
    }

    @Test func aVanishedCompositorIsAConnectionLoss() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let (display, registry, _) = try connect(sway)
        sway.stop()
        var caught: Error?
        do {
            // The first flush may still land in the socket buffer; the roundtrip cannot complete.
            for _ in 0..<3 { try display.roundtrip() }
        } catch { caught = error }
        guard case .connectionLost? = caught as? WaylandError else {
            Issue.record("expected a lost connection, got \(String(describing: caught))")
            return
        }
        #expect(ExitStatus(loopError: caught!) == .compositorLost)
        withExtendedLifetime(registry) {}
    }

    @Test func missingRequiredGlobalsAreNamed() {
        let globals = WaylandGlobals()
        #expect(throws: WaylandError.missingGlobals(["wl_compositor", "xdg_wm_base"])) { try globals.checkRequired() }
        #expect(
            WaylandError.missingGlobals(["xdg_wm_base"]).description
                == "the compositor does not offer required globals: xdg_wm_base")
    }

    @Test func noCompositorIsACleanError() {
        #expect(throws: WaylandError.self) { try WaylandDisplay(name: "/nonexistent/wayland-socket") }
    }
}
