import Screens
import Wayland

/// The outputs of a compositor right now, for `multiscreen outputs`: connect, bind, two roundtrips, done.
public enum OutputSnapshot {
    /// - Throws: ``WaylandError`` when there is no compositor or it fails.
    public static func take(display name: String? = nil) throws -> [OutputInfo] {
        let display = try WaylandDisplay(name: name)
        let registry = Registry(display: display)
        let globals = WaylandGlobals()
        var tracker = OutputTracker()
        var outputs: [Output] = []
        registry.onGlobal = { globalName, interface, _ in
            if interface == "zxdg_output_manager_v1" {
                globals.bindIfSingleton(registry, name: globalName, interface: interface)
                return
            }
            guard interface == "wl_output", let output = Output(registry: registry, name: globalName) else { return }
            output.onEvent = { event in _ = tracker.handle(event, registryName: globalName) }
            tracker.begin(registryName: globalName, waitsForXDGOutput: false)
            outputs.append(output)
        }
        try display.roundtrip()
        // Now that every global is known, ask for xdg-output descriptions where offered.
        for output in outputs {
            if let manager = globals.xdgOutputManager {
                tracker.expectXDGOutput(registryName: output.registryName)
                output.describe(with: manager)
            }
        }
        try display.roundtrip()
        try display.roundtrip()
        let result = tracker.outputs
        for output in outputs.reversed() { output.destroy() }
        globals.destroy()
        registry.destroy()
        display.disconnect()
        return result
    }
}
