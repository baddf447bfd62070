import Outputs

/// The outputs of a compositor right now, for `multiscreen outputs`: connect, bind, roundtrips, done.
public enum OutputSnapshot {
    /// - Throws: ``WaylandError`` when there is no compositor or it fails.
    public static func take(display name: String? = nil) throws -> [OutputInfo] {
        let display = try WaylandDisplay(name: name)
        let registry = Registry(display: display)
        let globals = WaylandGlobals()
        let outputs = OutputSet()
        registry.onGlobal = { globalName, interface, _ in
            switch interface {
            case "zxdg_output_manager_v1": globals.bindIfSingleton(registry, name: globalName, interface: interface)
            case "wl_output": outputs.bind(registry, name: globalName)
            default: break
            }
        }
        // First: the globals. Then every output's description (xdg-output ones asked for after the first).
        try display.roundtrip()
        if let manager = globals.xdgOutputManager { outputs.describe(with: manager) }
        try display.roundtrip()
        try display.roundtrip()
        let result = outputs.current
        outputs.destroy()
        globals.destroy()
        registry.destroy()
        display.disconnect()
        return result
    }
}
