import ArgumentParser
import Foundation
import Logging
import MultiscreenApp
import Remote

/// `multiscreen run`: attach to the Wayland session and put a screen on every output until stopped.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run on $WAYLAND_DISPLAY (or --display) until SIGINT/SIGTERM.",
        discussion: """
            Exit status: 0 after SIGINT/SIGTERM, 1 when it cannot start (no compositor, required global \
            missing, EGL or shaders unusable), 3 when the compositor goes away, 4 on a protocol error.
            """)

    @OptionGroup var logging: LoggingOptions
    @Option(help: "Wayland display name or socket path (default: $WAYLAND_DISPLAY).")
    var display: String?
    @Option(
        help:
            "Control socket (default: $MULTISCREEN_SOCKET, else $XDG_RUNTIME_DIR/multiscreen/<display>.sock, named after --display or $WAYLAND_DISPLAY)."
    )
    var socket: String?
    @Option(help: "Role rules (default: $XDG_CONFIG_HOME/multiscreen/config.toml).")
    var config: String?
    @Option(help: "State file (default: $XDG_STATE_HOME/multiscreen/state.json).")
    var state: String?

    mutating func run() throws {
        logging.bootstrap()
        let logger = Logger(label: "multiscreen")
        let app: Application
        do {
            var options = Application.Options(display: display)
            options.configPath = config
            options.statePath = state
            let environment = ProcessInfo.processInfo.environment
            let socketPath = try socket ?? ControlSocket.defaultPath(display: display, environment: environment)
            if socket == nil && (environment["MULTISCREEN_SOCKET"] ?? "").isEmpty {
                // The default, inside $XDG_RUNTIME_DIR: its `multiscreen` directory must be private.
                try ControlSocket.makePrivateDirectory(of: socketPath)
            }
            app = try Application(options: options) { bus in [try ControlServer(path: socketPath, bus: bus)] }
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(ExitStatus.startupFailure.rawValue)
        }
        let status = app.run()
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
