import CWaylandClient
import CWaylandProtocols

/// One `zwlr_output_power_v1`: the compositor's switch for one output's power (wlroots compositors: sway, labwc,
/// Wayfire). Owned by its ``Output``, which creates it to turn the output off and destroys it once the output is on
/// again: while it exists no other client may switch that output (the protocol gives one client control at a time).
final class OutputPower {
    private var proxy: OpaquePointer?
    /// The mode the compositor last reported: it reports the current one when the object is made, and each change.
    private(set) var reportsOn: Bool?
    /// The compositor withdrew control (the output cannot be switched, another client holds it, the output went).
    private(set) var failed = false

    init?(manager: OpaquePointer, output: OpaquePointer) {
        guard let proxy = zwlr_output_power_manager_v1_get_output_power(manager, output) else { return nil }
        self.proxy = proxy
        zwlr_output_power_v1_add_listener(proxy, outputPowerListener, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { destroy() }

    func set(on: Bool) {
        guard let proxy, !failed else { return }
        zwlr_output_power_v1_set_mode(proxy, on ? ZWLR_OUTPUT_POWER_V1_MODE_ON.rawValue : 0)
    }

    func destroy() {
        if let proxy { zwlr_output_power_v1_destroy(proxy) }
        proxy = nil
    }

    fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> OutputPower {
        Unmanaged<OutputPower>.fromOpaque(data!).takeUnretainedValue()
    }

    fileprivate func reported(mode: UInt32) { reportsOn = mode == ZWLR_OUTPUT_POWER_V1_MODE_ON.rawValue }
    fileprivate func withdrawn() { failed = true }
}

private nonisolated(unsafe) let outputPowerListener: UnsafeMutablePointer<zwlr_output_power_v1_listener> = {
    let listener = UnsafeMutablePointer<zwlr_output_power_v1_listener>.allocate(capacity: 1)
    listener.initialize(
        to: zwlr_output_power_v1_listener(
            mode: { data, _, mode in OutputPower.from(data).reported(mode: mode) },
            failed: { data, _ in OutputPower.from(data).withdrawn() }))
    return listener
}()
