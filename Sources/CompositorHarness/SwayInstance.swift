import Foundation

/// One running sway (headless or nested): its process, sockets, and the IPC-based queries both kinds share.
final class SwayInstance: Sendable {
    let compositor: CompositorProcess
    /// Absolute path of the Wayland socket.
    let waylandSocketPath: String
    /// The socket's name inside the runtime directory (`wayland-1`), what `WAYLAND_DISPLAY` holds.
    let waylandDisplay: String
    /// Absolute path of sway's IPC socket (`sway-ipc.UID.PID.sock`).
    let ipcSocketPath: String

    /// Starts sway with `config` and waits until both of its sockets exist.
    ///
    /// sway names its sockets itself (`wayland-N`, `sway-ipc.<uid>.<pid>.sock`); the runtime directory is private,
    /// so whatever socket appears in it is this sway's.
    init(name: String, config: String, environment: [String: String], timeout: Double) throws {
        let owner = Privileges.unprivilegedUserForSway
        let directory = try RuntimeDirectory(prefix: "ms-\(name)", owner: owner)
        let configPath: String
        do {
            configPath = try directory.write("sway.config", config)
        } catch {
            directory.remove()
            throw error
        }
        var environment = environment
        // An unprivileged sway cannot read root's home; keep whatever it writes (fontconfig caches) in the directory.
        if owner != nil { environment["HOME"] = directory.path }
        let compositor = try CompositorProcess(
            name: name, directory: directory,
            command: Privileges.prefix(for: owner) + ["sway", "--config", configPath], environment: environment)
        var wayland: String?
        var ipc: String?
        do {
            try compositor.waitUntil(timeout: timeout, "sway's Wayland and IPC sockets") {
                let entries = directory.entries()
                wayland = entries.first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
                ipc = entries.first { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }
                return wayland != nil && ipc != nil
            }
        } catch {
            compositor.stop()
            throw error
        }
        self.compositor = compositor
        waylandDisplay = wayland!
        waylandSocketPath = "\(directory.path)/\(wayland!)"
        ipcSocketPath = "\(directory.path)/\(ipc!)"
        // The socket file exists from bind(), but connections are refused until sway calls listen() (seen under
        // load: "Unable to connect to …sway-ipc….sock"). Ready means answering.
        var lastError: (any Error)?
        do {
            try compositor.waitUntil(timeout: timeout, "sway's IPC to answer") {
                do {
                    _ = try swaymsg(["-t", "get_version"])
                    return true
                } catch {
                    lastError = error
                    return false
                }
            }
        } catch var error as HarnessError {
            compositor.stop()
            if let lastError { error.message += "; last attempt: \(lastError)" }
            throw error
        }
    }

    var environment: [String: String] {
        ["WAYLAND_DISPLAY": waylandDisplay, "XDG_RUNTIME_DIR": compositor.directory.path, "SWAYSOCK": ipcSocketPath]
    }

    /// Runs `swaymsg -s <ipc> args…` and returns its stdout.
    /// - Throws: ``HarnessError`` if swaymsg fails (for commands: when sway answers `success: false`).
    func swaymsg(_ arguments: [String]) throws -> String {
        try compositor.checkAlive()
        let process = try ChildProcess("swaymsg", ["-s", ipcSocketPath] + arguments, environment: environment)
        let status = try process.waitForExit(timeout: 10)
        guard status == 0 else {
            throw HarnessError(
                "swaymsg \(arguments.joined(separator: " ")) failed with status \(status): \(process.output)",
                logTail: compositor.logTail())
        }
        return process.standardOutput
    }

    func outputs() throws -> [CompositorOutput] {
        try SwayJSON.outputs(from: swaymsg(["-r", "-t", "get_outputs"]))
    }

    func windows() throws -> [WindowInfo] {
        try SwayJSON.windows(from: swaymsg(["-r", "-t", "get_tree"]))
    }

    func output(_ name: String) throws -> CompositorOutput? {
        try outputs().first { $0.name == name }
    }

    /// Waits until `name` reports a `width`×`height` mode.
    func waitForMode(_ name: String, width: Int, height: Int, timeout: Double = 10) throws {
        try compositor.waitUntil(timeout: timeout, "output \(name) to be \(width)×\(height)") {
            let mode = try output(name)?.mode
            return mode?.width == width && mode?.height == height
        }
    }

    /// Runs `create_output` and waits for the new output's name.
    func createOutput(timeout: Double = 10) throws -> String {
        let before = Set(try outputs().map(\.name))
        _ = try swaymsg(["create_output"])
        var created: String?
        try compositor.waitUntil(timeout: timeout, "the output made by create_output") {
            created = try outputs().first { !before.contains($0.name) && $0.mode.width > 0 }?.name
            return created != nil
        }
        return created!
    }

    /// Throws unless `name` exists: sway accepts `output NAME …` for unknown names (it keeps the config for an
    /// output that may appear later), so a typo would otherwise surface as a confusing timeout.
    func requireOutput(_ name: String) throws {
        let names = try outputs().map(\.name)
        guard names.contains(name) else {
            throw HarnessError("\(compositor.name) has no output \(name) (it has \(names.joined(separator: ", ")))")
        }
    }

    func setMode(_ name: String, width: Int, height: Int) throws {
        try requireOutput(name)
        _ = try swaymsg(["output", name, "mode", "\(width)x\(height)"])
        try waitForMode(name, width: width, height: height)
    }

    func setScale(_ name: String, _ scale: Double) throws {
        try requireOutput(name)
        _ = try swaymsg(["output", name, "scale", "\(scale)"])
        try compositor.waitUntil(timeout: 10, "output \(name) to have scale \(scale)") {
            guard let current = try output(name)?.scale else { return false }
            return abs(current - scale) < 0.001
        }
    }

    func setTransform(_ name: String, _ transform: String) throws {
        try requireOutput(name)
        _ = try swaymsg(["output", name, "transform", transform])
        try compositor.waitUntil(timeout: 10, "output \(name) to have transform \(transform)") {
            try output(name)?.transform == transform
        }
    }

    /// `grim -o OUTPUT -t ppm -`, parsed.
    func screenshot(_ output: String) throws -> Screenshot {
        try compositor.checkAlive()
        let grim = try ChildProcess(
            "grim", ["-o", output, "-t", "ppm", "-"], environment: environment, standardOutput: .bytes)
        let status = try grim.waitForExit(timeout: 20)
        guard status == 0 else {
            throw HarnessError("grim -o \(output) failed with status \(status): \(grim.standardError)")
        }
        return try Screenshot(ppm: grim.standardOutputBytes)
    }

    /// `grim -o OUTPUT path.png`: grim's own (compressed) PNG writer.
    func screenshotPNG(_ output: String, to path: String) throws {
        try compositor.checkAlive()
        let grim = try ChildProcess("grim", ["-o", output, "-t", "png", path], environment: environment)
        let status = try grim.waitForExit(timeout: 20)
        guard status == 0 else {
            throw HarnessError("grim -o \(output) \(path) failed with status \(status): \(grim.standardError)")
        }
    }

    /// Takes screenshots of `output` until `condition` holds for one, which it returns.
    ///
    /// What a client draws reaches the screen some frames later; tests wait for the picture they expect rather
    /// than guessing a delay.
    func waitForScreenshot(
        _ output: String, timeout: Double, _ what: String, _ condition: (Screenshot) -> Bool
    ) throws -> Screenshot {
        var last: Screenshot?
        do {
            try compositor.waitUntil(timeout: timeout, what) {
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
