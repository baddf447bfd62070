import ArgumentParser
import Foundation
import Logging
import MultiscreenApp
import Outputs
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
    @Flag(
        help:
            "Photodiode / camera mode: a patch on every screen turns white or black with each frame that shows new messages (frame.shown says which, with its presented time)."
    )
    var flash = false
    @Option(help: "Side of the flash patch in logical pixels.")
    var flashSize = 64
    @Option(help: "Corner of the flash patch: top-left, top-right, bottom-left or bottom-right.")
    var flashCorner = "top-left"
    @Option(
        help:
            "When a screen draws a change: frame (on the frame callback, default), immediate, or deadline (as late as still makes the earliest presentation)."
    )
    var pacing = "frame"

    func validate() throws {
        guard FlashPatch.Corner(rawValue: flashCorner) != nil else {
            throw ValidationError("--flash-corner takes top-left, top-right, bottom-left or bottom-right")
        }
        guard (1...4096).contains(flashSize) else { throw ValidationError("--flash-size takes 1…4096") }
        guard FramePacing(rawValue: pacing) != nil else {
            throw ValidationError("--pacing takes frame, immediate or deadline")
        }
    }

    mutating func run() throws {
        logging.bootstrap()
        let logger = Logger(label: "multiscreen")
        let app: Application
        do {
            var options = Application.Options(display: display)
            options.configPath = config
            options.statePath = state
            options.pacing = FramePacing(rawValue: pacing)!
            if flash { options.flash = FlashPatch(size: flashSize, corner: FlashPatch.Corner(rawValue: flashCorner)!) }
            let socketPath =
                try socket
                ?? ControlSocket.defaultPath(display: display, environment: ProcessInfo.processInfo.environment)
            app = try Application(options: options) { bus in [try ControlServer(path: socketPath, bus: bus)] }
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(ExitStatus.startupFailure.rawValue)
        }
        let status = app.run()
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
