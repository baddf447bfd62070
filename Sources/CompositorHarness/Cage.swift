import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A private headless cage 0.1.4 (the wlroots kiosk compositor) running one application.
///
/// cage starts the application itself and exits when it exits. It shows one window at a time and, with `-m extend`
/// (its default, passed explicitly), extends that window across every output: the window is configured to the size
/// of the whole output layout. Outputs are wlroots headless outputs, `HEADLESS-1` … `HEADLESS-n`, 1280×720 each
/// (cage has no way to set a mode); their layout positions are cage's choice (with two outputs `HEADLESS-2` has been
/// seen at x = 0), so read them from ``outputs()``.
///
/// Like sway, cage must not run as root: when we are root it runs as `nobody` through `setpriv`
/// (``Privileges/unprivilegedUserForSway``), and so does the application it starts, with cage's environment. The
/// application gets a home, a state and a config directory of its own inside the runtime directory, owned by that
/// user, so it never touches ours.
///
/// Ownership: the instance owns cage and the application. ``stop()`` — also run by `deinit`, so a test that throws
/// still cleans up — kills exactly those processes by process group and by the harness marker variable, reaps them
/// and deletes the runtime directory (with the application's home, state and config).
///
/// The application's stdout and stderr go to cage's, so ``log`` and ``waitForLine(containing:timeout:)`` see both.
/// cage has wlr-screencopy, so ``screenshot(_:)`` uses `grim`.
public final class Cage: Sendable {
    let compositor: CompositorProcess
    /// The socket name inside the runtime directory, what `WAYLAND_DISPLAY` holds.
    public let waylandDisplay: String
    /// The application's `HOME`.
    public let homeDirectory: String
    /// The application's `XDG_STATE_HOME`.
    public let stateDirectory: String
    /// The application's `XDG_CONFIG_HOME`.
    public let configDirectory: String

    /// Starts cage with `application` and waits until its Wayland socket accepts connections.
    /// - Parameters:
    ///   - outputs: Number of headless outputs (`WLR_HEADLESS_OUTPUTS`).
    ///   - application: The program cage runs and its arguments. When we are root it runs as `nobody`, so the
    ///     executable must be readable and executable by that user.
    ///   - environment: Variables for cage and the application, laid over the harness's (`HOME`, `XDG_STATE_HOME`,
    ///     `XDG_CONFIG_HOME`, `XDG_CACHE_HOME`, wlroots' backend variables); `XDG_RUNTIME_DIR` is always the
    ///     instance's own.
    ///   - configFiles: Files to create in ``configDirectory`` before cage starts, by relative path (`"multiscreen/
    ///     config.toml"`), owned by the user the application runs as.
    ///   - timeout: Seconds to wait for the socket.
    /// - Throws: ``HarnessError`` with cage's log tail when it fails to start, exits, or does not become ready.
    public init(
        outputs: Int, application: [String], environment: [String: String] = [:],
        configFiles: [String: String] = [:], timeout: Double = 30
    ) throws {
        precondition(outputs >= 0, "a negative number of outputs")
        precondition(!application.isEmpty, "cage needs an application to run")
        let owner = Privileges.unprivilegedUserForSway
        let directory = try RuntimeDirectory(prefix: "ms-cage", owner: owner)
        let home: String
        let state: String
        let config: String
        let cache: String
        do {
            home = try directory.makeSubdirectory("home", owner: owner)
            state = try directory.makeSubdirectory("home/state", owner: owner)
            config = try directory.makeSubdirectory("home/config", owner: owner)
            cache = try directory.makeSubdirectory("home/cache", owner: owner)
            for (relativePath, contents) in configFiles.sorted(by: { $0.key < $1.key }) {
                try Self.writeFile(relativePath, contents, under: config, owner: owner)
            }
        } catch {
            directory.remove()
            throw error
        }
        homeDirectory = home
        stateDirectory = state
        configDirectory = config
        waylandDisplay = "wayland-0"
        var variables = [
            "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1",
            "WLR_HEADLESS_OUTPUTS": "\(outputs)", "HOME": home, "XDG_STATE_HOME": state, "XDG_CONFIG_HOME": config,
            "XDG_CACHE_HOME": cache,
        ]
        variables.merge(environment) { _, new in new }
        compositor = try CompositorProcess(
            name: "cage", directory: directory,
            command: Privileges.prefix(for: owner) + ["cage", "-m", "extend", "--"] + application,
            environment: variables, workingDirectory: home)
        do {
            let socket = "\(directory.path)/\(waylandDisplay)"
            // The socket file exists from bind(); until listen() a connection is refused, which is "not ready yet".
            try compositor.waitUntil(timeout: timeout, "cage's Wayland socket to accept connections") {
                Self.acceptsConnections(socket)
            }
        } catch {
            compositor.stop()
            throw error
        }
        compositor.logger.info(
            "cage ready in \(Int(compositor.age * 1000)) ms", metadata: ["outputs": "\(outputs)"])
    }

    deinit {
        stop()
    }

    /// What a client (`grim`, `wayland-info`, a second application) needs to connect: `WAYLAND_DISPLAY` and
    /// `XDG_RUNTIME_DIR`.
    public var environment: [String: String] {
        ["WAYLAND_DISPLAY": waylandDisplay, "XDG_RUNTIME_DIR": compositor.directory.path]
    }

    /// The private `XDG_RUNTIME_DIR`.
    public var runtimeDirectory: String { compositor.directory.path }
    /// cage's PID (running as `nobody` when we are root).
    public var pid: pid_t { compositor.process.pid }
    /// Every live process of this instance (cage and the application): for checks that ``stop()`` leaves nothing.
    public var processIDs: [pid_t] { compositor.processIDs }
    /// cage's output and the application's, so far.
    public var log: String { compositor.process.output }
    /// Seconds since cage was spawned.
    public var age: Double { compositor.age }
    /// Whether cage is still running (it exits when the application does).
    public var isRunning: Bool { compositor.process.isRunning }

    /// Waits until cage or the application prints a line containing `needle`, and returns that line.
    /// - Throws: ``HarnessError`` on timeout, or as soon as cage's output ends without such a line.
    @discardableResult
    public func waitForLine(containing needle: String, timeout: Double = 10) throws -> String {
        try compositor.process.waitForLine(containing: needle, timeout: timeout)
    }

    /// The outputs as a client sees them (`wayland-info`: `HEADLESS-n` names and layout positions from
    /// `xdg_output`).
    public func outputs() throws -> [CompositorOutput] {
        try compositor.checkAlive()
        return WaylandInfo.outputs(from: try WaylandInfo.run(environment: environment))
    }

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

    /// Screenshots `output` until `condition` holds for one, which it returns (a client's frame takes a few frames
    /// to show up).
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

    /// Kills cage and the application by process group and marker, reaps them and removes the runtime directory.
    /// Idempotent.
    public func stop() { compositor.stop() }

    // MARK: - Helpers

    /// Whether a Unix stream socket at `path` accepts a connection (closed again at once).
    static func acceptsConnections(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }

    /// Writes `contents` to `relativePath` under `directory`, creating intermediate directories; everything it
    /// creates is owned by `owner` (when set) so the application may also change it.
    private static func writeFile(
        _ relativePath: String, _ contents: String, under directory: String, owner: Privileges.User?
    ) throws {
        let components = relativePath.split(separator: "/").map(String.init)
        guard !components.isEmpty, !components.contains(".."), !relativePath.hasPrefix("/") else {
            throw HarnessError("config file path \"\(relativePath)\" must be relative and stay inside the directory")
        }
        var path = directory
        for component in components.dropLast() {
            path += "/\(component)"
            guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
                throw HarnessError("mkdir \(path) failed: \(String(cString: strerror(errno)))")
            }
            if let owner { _ = chown(path, owner.uid, owner.gid) }
        }
        path += "/\(components.last!)"
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(contents.utf8), attributes: [.posixPermissions: 0o644])
        else { throw HarnessError("cannot write \(path): \(String(cString: strerror(errno)))") }
        if let owner { _ = chown(path, owner.uid, owner.gid) }
    }
}
