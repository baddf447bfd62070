#if canImport(Glibc)
    import Glibc
#endif

/// A private headless sway: outputs without a screen, rendered by pixman, for tests and `multiscreen demo`.
///
/// Ownership: the instance owns sway and everything sway starts (`swaybg`, `exec`'d programs). ``stop()`` — also run
/// by `deinit`, so a test that throws still cleans up — kills exactly those processes by PID and process group, reaps
/// them, and deletes the runtime directory.
///
/// Headless outputs can be added (``createOutput()``) and reconfigured but never removed (wlroots 0.15); for
/// removable outputs use ``NestedSway``.
public final class HeadlessSway: SwayCompositor {
    public let sway: SwayInstance
    /// The mode every output (including created ones) gets from the generated config.
    public let defaultWidth: Int
    public let defaultHeight: Int

    /// Starts sway and waits (up to `timeout` seconds) until its sockets and IPC answer and all `outputs` exist with
    /// the requested mode and scale.
    /// - Parameters:
    ///   - outputs: Number of headless outputs, `HEADLESS-1` … `HEADLESS-n`.
    ///   - width: Mode width of every output, in pixels (also applied to outputs created later).
    ///   - height: Mode height.
    ///   - scale: Output scale.
    ///   - extraConfig: Appended to the generated config, e.g. `output * bg #112233 solid_color`.
    /// - Throws: ``HarnessError`` with sway's log tail when it fails to start or does not become ready.
    public init(
        outputs: Int, width: Int = 640, height: Int = 360, scale: Double = 1, extraConfig: String = "",
        timeout: Double = 30
    ) throws {
        precondition(outputs >= 0, "a negative number of outputs")
        defaultWidth = width
        defaultHeight = height
        sway = try SwayInstance(
            name: "sway", config: "output * mode \(width)x\(height) scale \(scale)\n\(extraConfig)",
            environment: [
                "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1",
                "WLR_HEADLESS_OUTPUTS": "\(outputs)",
            ], timeout: timeout)
        try cleaningUp(onError: sway.compositor.stop) {
            try sway.compositor.waitUntil(
                timeout: timeout, "\(outputs) outputs of \(width)×\(height) at scale \(scale)"
            ) {
                let current = try sway.outputs()
                return current.count == outputs
                    && current.allSatisfy {
                        $0.mode.width == width && $0.mode.height == height && abs($0.scale - scale) < 0.001
                    }
            }
        }
        sway.compositor.logger.info(
            "headless sway ready in \(Int(sway.compositor.age * 1000)) ms", metadata: ["outputs": "\(outputs)"])
    }

    deinit {
        stop()
    }

    /// Adds a headless output (with the default mode) and returns its name once it exists.
    @discardableResult
    public func createOutput() throws -> String {
        let name = try sway.createOutput()
        try sway.waitForMode(name, width: defaultWidth, height: defaultHeight)
        return name
    }

    /// Sets `output`'s mode and waits until sway reports it.
    public func setMode(_ output: String, width: Int, height: Int) throws {
        try sway.setMode(output, width: width, height: height)
    }

    /// Sets `output`'s scale and waits until sway reports it.
    public func setScale(_ output: String, _ scale: Double) throws { try sway.setScale(output, scale) }

    /// Sets `output`'s transform (`normal`, `90`, `180`, `270`, `flipped-90`, …) and waits until sway reports it.
    public func setTransform(_ output: String, _ transform: String) throws { try sway.setTransform(output, transform) }

    /// Floats the window `criteria` matches at the top left, borderless and exactly `width`×`height`, and waits until
    /// `applied` says its client took that size (for a nested compositor's output window: the output's new mode).
    ///
    /// sway 1.7 now and then leaves a window it has just mapped or floated at the size its client last committed,
    /// whatever `resize set` asked (about once in a hundred hotplugs of a nested sway; 8 runs in 55 of cage's output
    /// windows), so the command is sent again every half second until `applied` holds. Sending it again to a window
    /// that already has that size and place changes nothing.
    public func placeFloatingWindow(
        _ criteria: String, width: Int, height: Int, timeout: Double = 10, until applied: () throws -> Bool
    ) throws {
        let command = "\(criteria) floating enable, border none, resize set \(width) \(height), move position 0 0"
        try swaymsg(command)
        var lastAsked = monotonicSeconds()
        try compositor.waitUntil(timeout: timeout, "\(criteria) to be placed at \(width)×\(height)") {
            if try applied() { return true }
            if monotonicSeconds() - lastAsked > 0.5 {
                try swaymsg(command)
                lastAsked = monotonicSeconds()
            }
            return false
        }
    }
}
