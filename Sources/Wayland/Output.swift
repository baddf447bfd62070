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
    /// The compositor's power switch for this output, while Multiscreen holds it off
    /// (``requestPower(on:globals:answer:)``).
    private var power: OutputPower?
    /// The round trip that tells whether the compositor carried out the last power request.
    private var powerAnswer: FrameCallback?

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

    /// Asks the compositor to turn this output off or on (`zwlr_output_power_v1`). `answer` runs on the display
    /// thread once the compositor has dealt with the request: true when it reports the output in that mode, false
    /// when it cannot switch it (no such protocol, control withdrawn, or a mode it did not change to: sway 1.7 fails
    /// the commit on its headless backend without saying so). A newer request supersedes one not answered yet.
    public func requestPower(on: Bool, globals: WaylandGlobals, answer: @escaping (Bool) -> Void) {
        powerAnswer = nil
        if power == nil, !on, let manager = globals.outputPowerManager, let proxy {
            power = OutputPower(manager: manager, output: proxy)
        }
        guard let power else { return answer(on) }
        power.set(on: on)
        // The compositor answers a mode change at once (wlroots reports it on the output's commit): by the time the
        // sync comes back, a mode event says whether it happened.
        let sync = globals.requestSync { [unowned self] in
            powerAnswer = nil
            let done = !power.failed && power.reportsOn == on
            // On again, or refused: control goes back to the compositor and to other clients.
            if on || !done {
                power.destroy()
                self.power = nil
            }
            answer(done)
        }
        guard let sync else { return answer(false) }
        powerAnswer = sync
    }

    /// Releases both objects: `zxdg_output_v1.destroy`, then `wl_output.release` (v3+), which tells the
    /// compositor we are done with it, unlike a client-side destroy. An output Multiscreen turned off is turned on
    /// first: a stopped Multiscreen must not leave a screen dark that nothing will turn on again.
    func destroy() {
        powerAnswer = nil
        if let power {
            power.set(on: true)
            power.destroy()
            self.power = nil
        }
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
