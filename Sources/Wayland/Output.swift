import CWaylandClient
import CWaylandProtocols
import Outputs

/// Owns one bound `wl_output` and, when the compositor offers xdg-output, its `zxdg_output_v1`.
///
/// Events are translated into ``OutputEvent`` values and handed to ``onEvent``; all bookkeeping happens in
/// ``OutputTracker``. Created and destroyed by ``OutputSet`` only: bound at `global`, destroyed at `global_remove`
/// after the window on it is gone (like swaybg's `destroy_swaybg_output`). Outside this module it is a handle to
/// pass to ``ToplevelWindow``; its proxy never leaves the module.
public final class Output {
    public let registryName: UInt32
    private(set) var proxy: OpaquePointer?
    let version: UInt32
    private(set) var xdgOutput: OpaquePointer?
    var onEvent: (OutputEvent) -> Void = { _ in }

    init(registryName: UInt32, proxy: OpaquePointer, version: UInt32) {
        self.registryName = registryName
        self.proxy = proxy
        self.version = version
        wl_output_add_listener(proxy, outputListener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Binds the `wl_output` global `name` at `min(advertised, 4)`.
    convenience init?(registry: Registry, name: UInt32) {
        guard
            let bound = registry.bind(
                name, interface: ms_wl_output_interface(), supported: WaylandGlobals.Supported.output)
        else { return nil }
        self.init(registryName: name, proxy: bound.proxy, version: bound.version)
    }

    deinit { destroy() }

    /// Asks for the xdg-output description (logical position and size, and the name on wl_output v3).
    func describe(with manager: OpaquePointer) {
        guard xdgOutput == nil, let xdg = zxdg_output_manager_v1_get_xdg_output(manager, proxy) else { return }
        xdgOutput = xdg
        zxdg_output_v1_add_listener(xdg, xdgOutputListener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Releases both objects: `zxdg_output_v1.destroy`, then `wl_output.release` (v3+), which tells the
    /// compositor we are done with it, unlike a client-side destroy.
    func destroy() {
        if let xdg = xdgOutput { zxdg_output_v1_destroy(xdg) }
        xdgOutput = nil
        guard let proxy else { return }
        if version >= 3 { wl_output_release(proxy) } else { wl_output_destroy(proxy) }
        self.proxy = nil
    }

    fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> Output {
        Unmanaged<Output>.fromOpaque(data!).takeUnretainedValue()
    }
}

private func string(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }

private nonisolated(unsafe) let outputListener: UnsafeMutablePointer<wl_output_listener> = {
    let listener = UnsafeMutablePointer<wl_output_listener>.allocate(capacity: 1)
    listener.initialize(
        to: wl_output_listener(
            geometry: { data, _, x, y, pw, ph, _, make, model, transform in
                Output.from(data).onEvent(
                    .geometry(
                        x: x, y: y, physicalWidth: pw, physicalHeight: ph, make: string(make), model: string(model),
                        transform: transform))
            },
            mode: { data, _, flags, w, h, refresh in
                // Only the current mode matters; older compositors also list the others.
                guard flags & WL_OUTPUT_MODE_CURRENT.rawValue != 0 else { return }
                Output.from(data).onEvent(.mode(width: w, height: h, refresh: refresh))
            },
            done: { data, _ in Output.from(data).onEvent(.done) },
            scale: { data, _, factor in Output.from(data).onEvent(.scale(factor)) },
            name: { data, _, name in Output.from(data).onEvent(.name(string(name))) },
            description: { data, _, d in Output.from(data).onEvent(.description(string(d))) }))
    return listener
}()

private nonisolated(unsafe) let xdgOutputListener: UnsafeMutablePointer<zxdg_output_v1_listener> = {
    let listener = UnsafeMutablePointer<zxdg_output_v1_listener>.allocate(capacity: 1)
    listener.initialize(
        to: zxdg_output_v1_listener(
            logical_position: { data, _, x, y in Output.from(data).onEvent(.logicalPosition(x: x, y: y)) },
            logical_size: { data, _, w, h in Output.from(data).onEvent(.logicalSize(width: w, height: h)) },
            done: { data, _ in Output.from(data).onEvent(.xdgDone) },
            name: { data, _, name in Output.from(data).onEvent(.xdgName(string(name))) },
            description: { data, _, d in Output.from(data).onEvent(.xdgDescription(string(d))) }))
    return listener
}()
