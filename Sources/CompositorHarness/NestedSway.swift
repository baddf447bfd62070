import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A sway running as a client of a ``HeadlessSway``: its outputs (`WL-1`, `WL-2`, …) are windows of the outer sway,
/// so unlike headless outputs they can be removed (close the window) and resized (resize the window).
///
/// The outer windows are made floating and borderless and sized with `resize set`, which sets the inner output's
/// mode exactly. The outer sway is kept alive as long as this instance; ``stop()`` stops only the inner one.
public final class NestedSway: SwayCompositor {
    /// The compositor whose windows are our outputs.
    public let outer: HeadlessSway
    public let sway: SwayInstance
    public let defaultWidth: Int
    public let defaultHeight: Int

    /// Starts the nested sway with `outputs` outputs of `width`×`height` and waits until they all have that mode.
    /// - Throws: ``HarnessError`` with the inner sway's log tail.
    public init(
        inside outer: HeadlessSway, outputs: Int, width: Int = 640, height: Int = 360, extraConfig: String = "",
        timeout: Double = 30
    ) throws {
        precondition(outputs >= 1, "wlroots' wayland backend needs at least one output")
        self.outer = outer
        defaultWidth = width
        defaultHeight = height
        sway = try SwayInstance(
            name: "nested-sway", config: extraConfig,
            environment: [
                "WLR_BACKENDS": "wayland", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1",
                "WLR_WL_OUTPUTS": "\(outputs)",
                // An absolute WAYLAND_DISPLAY is taken as the socket path (libwayland ≥ 1.15): the inner sway
                // has its own XDG_RUNTIME_DIR.
                "WAYLAND_DISPLAY": outer.waylandSocketPath,
            ], timeout: timeout)
        try cleaningUp(onError: sway.compositor.stop) {
            var names: [String] = []
            try sway.compositor.waitUntil(timeout: timeout, "\(outputs) nested outputs") {
                names = try sway.outputs().map(\.name)
                return names.count == outputs
            }
            for name in names {
                try placeWindow(of: name, width: width, height: height, timeout: timeout)
            }
            // An output added later is floated and sized as its window maps. Clients see it at the wayland
            // backend's default 1280×720 and then at its own size, as before, but no longer at the whole outer
            // output's size in between (the outer sway tiled the new window until `placeWindow` floated it): a
            // frame drawn for that transient mode, 2.25 times the pixels, was most of the hotplug latency measured.
            // sway cannot remove a rule: it outlives this nested sway in the outer one, matching only its pid.
            try outer.swaymsg(
                "for_window \(windowCriteria) floating enable, border none, resize set \(width) \(height), "
                    + "move position 0 0")
        }
        sway.compositor.logger.info("nested sway ready in \(Int(sway.compositor.age * 1000)) ms")
    }

    deinit {
        stop()
    }

    /// Adds an output (a new outer window), sizes it to the default mode, and returns its name.
    @discardableResult
    public func createOutput() throws -> String {
        let name = try sway.createOutput()
        try placeWindow(of: name, width: defaultWidth, height: defaultHeight)
        return name
    }

    /// Removes `name` by closing its outer window, and waits until the inner sway no longer lists it (clients see
    /// `wl_registry.global_remove`).
    public func removeOutput(_ name: String) throws {
        try sway.requireOutput(name)
        try outer.swaymsg("\(criteria(for: name)) kill")
        try sway.compositor.waitUntil(timeout: 10, "output \(name) to disappear") {
            try !sway.outputs().contains { $0.name == name }
        }
    }

    /// Hides `name`'s outer window (moves it to the outer sway's scratchpad): the output stays, but the outer sway
    /// stops asking the inner one for frames of it, so clients on it get no frame callbacks, as on a monitor that
    /// stopped presenting.
    public func hideOutput(_ name: String) throws {
        try sway.requireOutput(name)
        try outer.swaymsg("\(criteria(for: name)) move scratchpad")
    }

    /// Shows a hidden output's outer window again.
    public func showOutput(_ name: String) throws {
        try sway.requireOutput(name)
        try outer.swaymsg("\(criteria(for: name)) scratchpad show")
    }

    /// Changes `name`'s mode by resizing its outer window, and waits until the inner sway reports it.
    public func resizeOutput(_ name: String, width: Int, height: Int) throws {
        try sway.requireOutput(name)
        try outer.swaymsg("\(criteria(for: name)) resize set \(width) \(height)")
        try sway.waitForMode(name, width: width, height: height)
    }

    /// sway criteria for the outer window that is inner output `name`: wlroots titles it "wlroots - NAME"; the PID
    /// keeps two nested sways in one outer sway apart.
    private func criteria(for name: String) -> String {
        "[pid=\(sway.compositor.process.pid) title=\"^wlroots - \(name)$\"]"
    }

    /// sway criteria for every outer window of this nested sway.
    private var windowCriteria: String { "[pid=\(sway.compositor.process.pid) title=\"^wlroots - \"]" }

    /// Waits for the outer window of `name`, then floats it at the top left with exactly `width`×`height` and waits
    /// until the inner sway reports that mode (a dead inner sway fails the wait with its own log).
    private func placeWindow(of name: String, width: Int, height: Int, timeout: Double = 10) throws {
        let title = "wlroots - \(name)"
        let pid = sway.compositor.process.pid
        try sway.compositor.waitUntil(timeout: timeout, "the outer window \"\(title)\"") {
            try outer.windows().contains { $0.title == title && $0.pid == pid }
        }
        try outer.placeFloatingWindow(criteria(for: name), width: width, height: height, timeout: timeout) {
            try sway.compositor.checkAlive()
            let mode = try sway.output(name)?.mode
            return mode?.width == width && mode?.height == height
        }
    }
}
