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
public final class Cage: ScreencopyCompositor {
    public let compositor: CompositorProcess
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
        let (home, state, config, cache) = try cleaningUp(onError: directory.remove) {
            let home = try directory.makeSubdirectory("home", owner: owner)
            let state = try directory.makeSubdirectory("home/state", owner: owner)
            let config = try directory.makeSubdirectory("home/config", owner: owner)
            let cache = try directory.makeSubdirectory("home/cache", owner: owner)
            for (relativePath, contents) in configFiles.sorted(by: { $0.key < $1.key }) {
                try Self.writeFile(relativePath, contents, under: config, owner: owner)
            }
            return (home, state, config, cache)
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
        try cleaningUp(onError: compositor.stop) {
            try compositor.waitForWaylandSocket(waylandDisplay, timeout: timeout)
        }
        compositor.logger.info(
            "cage ready in \(Int(compositor.age * 1000)) ms", metadata: ["outputs": "\(outputs)"])
    }

    deinit {
        stop()
    }

    /// Whether cage is still running (it exits when the application does).
    public var isRunning: Bool { compositor.process.isRunning }

    /// Waits until cage or the application prints a line containing `needle`, and returns that line.
    /// - Throws: ``HarnessError`` on timeout, or as soon as cage's output ends without such a line.
    @discardableResult
    public func waitForLine(containing needle: String, timeout: Double = 10) throws -> String {
        try compositor.process.waitForLine(containing: needle, timeout: timeout)
    }

    // MARK: - Helpers

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
