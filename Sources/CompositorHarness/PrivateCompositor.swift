import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What every compositor the harness starts (``HeadlessSway``, ``NestedSway``, ``Cage``, ``Weston``) offers a test:
/// how a client connects, its processes and log, its outputs, and ``stop()``.
///
/// The members come from the protocol's extensions; the conforming classes keep only what sets them apart. Not
/// meant to be adopted outside the harness: ``CompositorProcess`` is opaque there.
public protocol PrivateCompositor: AnyObject, Sendable {
    /// The compositor's process, runtime directory and log.
    var compositor: CompositorProcess { get }
    /// The socket name inside the runtime directory, what `WAYLAND_DISPLAY` holds.
    var waylandDisplay: String { get }
    /// What a client (`grim`, `wayland-info`, a second application) needs to connect.
    var environment: [String: String] { get }
    /// The outputs as the compositor reports them.
    func outputs() throws -> [CompositorOutput]
}

extension PrivateCompositor {
    /// `WAYLAND_DISPLAY` and `XDG_RUNTIME_DIR`.
    public var environment: [String: String] {
        ["WAYLAND_DISPLAY": waylandDisplay, "XDG_RUNTIME_DIR": compositor.directory.path]
    }

    /// The private `XDG_RUNTIME_DIR`.
    public var runtimeDirectory: String { compositor.directory.path }
    /// The compositor's PID (running as `nobody` when we are root, for sway and cage).
    public var pid: pid_t { compositor.process.pid }
    /// Every live process of this compositor (and what it started: `swaybg`, an application, `weston-keyboard`, …):
    /// for checks that ``stop()`` leaves nothing behind.
    public var processIDs: [pid_t] { compositor.processIDs }
    /// The compositor's output so far (for cage, the application's too).
    public var log: String { compositor.process.output }

    /// The outputs as a client sees them (`wayland-info`: `wl_output` plus `xdg_output` names and layout
    /// positions, e.g. `HEADLESS-n` for cage, `headless` for weston).
    public func outputs() throws -> [CompositorOutput] {
        try compositor.checkAlive()
        return WaylandInfo.outputs(from: try WaylandInfo.run(environment: environment))
    }

    /// Sends `signal` to the compositor process itself (not to what it started), e.g. `SIGKILL` to test a crash at
    /// a known moment; ``stop()`` still cleans up the rest.
    public func signal(_ signal: Int32) { compositor.process.signal(signal) }

    /// Kills the compositor and everything it started (by process group and by the harness marker variable), reaps
    /// them and removes the runtime directory. Idempotent; also run by `deinit`, so a test that throws still cleans
    /// up.
    public func stop() { compositor.stop() }
}

/// A compositor with wlr-screencopy (sway, cage), whose outputs `grim` captures.
public protocol ScreencopyCompositor: PrivateCompositor {}

extension ScreencopyCompositor {
    /// The pixels of `output` (`grim -o OUTPUT -t ppm -`), in physical pixels.
    public func screenshot(_ output: String) throws -> Screenshot {
        try compositor.checkAlive()
        let grim = try ChildProcess(
            "grim", ["-o", output, "-t", "ppm", "-"], environment: environment, standardOutput: .bytes)
        let status = try grim.waitForExit(timeout: 20)
        guard status == 0 else {
            throw HarnessError("grim -o \(output) failed with status \(status): \(grim.standardError)")
        }
        return try Screenshot(ppm: grim.standardOutputBytes)
    }

    /// Writes `output` as a PNG with grim's own (compressed) encoder.
    public func screenshotPNG(_ output: String, to path: String) throws {
        try compositor.checkAlive()
        let grim = try ChildProcess("grim", ["-o", output, "-t", "png", path], environment: environment)
        let status = try grim.waitForExit(timeout: 20)
        guard status == 0 else {
            throw HarnessError("grim -o \(output) \(path) failed with status \(status): \(grim.standardError)")
        }
    }

    /// Screenshots `output` until `condition` holds for one, which it returns.
    ///
    /// What a client draws reaches the screen some frames later; tests wait for the picture they expect rather
    /// than guessing a delay.
    @discardableResult
    public func waitForScreenshot(
        _ output: String, timeout: Double = 10, _ what: String = "the expected picture",
        where condition: (Screenshot) -> Bool
    ) throws -> Screenshot {
        var last: Screenshot?
        do {
            try compositor.waitUntil(timeout: timeout, "\(what) on \(output)") {
                let shot = try screenshot(output)
                last = shot
                return condition(shot)
            }
        } catch var error as HarnessError {
            if let last {
                error.message += " (last screenshot \(last.width)×\(last.height), dominant \(last.dominantColor()))"
            }
            throw error
        }
        return last!
    }
}

/// A sway the harness runs (``HeadlessSway``, ``NestedSway``): everything but how its outputs come and go is
/// sway's IPC and grim, shared here.
public protocol SwayCompositor: ScreencopyCompositor {
    /// The running sway behind this compositor.
    var sway: SwayInstance { get }
}

extension SwayCompositor {
    public var compositor: CompositorProcess { sway.compositor }
    public var waylandDisplay: String { sway.waylandDisplay }
    /// What a client needs to connect: `WAYLAND_DISPLAY`, `XDG_RUNTIME_DIR`, `SWAYSOCK`.
    public var environment: [String: String] { sway.environment }
    /// Absolute path of the Wayland socket (what a nested compositor puts in `WAYLAND_DISPLAY`).
    public var waylandSocketPath: String { sway.waylandSocketPath }

    /// Runs `swaymsg` against this sway; returns its stdout. Arguments are joined by swaymsg into one command.
    @discardableResult
    public func swaymsg(_ arguments: String...) throws -> String { try sway.swaymsg(arguments) }

    /// `swaymsg -t get_outputs`, parsed.
    public func outputs() throws -> [CompositorOutput] { try sway.outputs() }

    /// Every window in `swaymsg -t get_tree`, with the output it is on.
    public func windows() throws -> [WindowInfo] { try sway.windows() }

    /// Waits until sway lists a window matching `predicate`, and returns it.
    @discardableResult
    public func waitForWindow(timeout: Double = 10, where predicate: (WindowInfo) -> Bool) throws -> WindowInfo {
        var found: WindowInfo?
        try compositor.waitUntil(timeout: timeout, "a matching window") {
            found = try windows().first(where: predicate)
            return found != nil
        }
        return found!
    }
}
