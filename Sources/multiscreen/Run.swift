import ArgumentParser
import Fleet
import Foundation
import Logging
import Messaging
import MultiscreenApp
import Outputs
import Remote
import Screens

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
    @Option(
        help: ArgumentHelp(
            "Join the fleet through this MQTT broker (mqtt://host[:port] or mqtts://…); the rest of [fleet] in the config applies.",
            valueName: "url"))
    var fleet: String?
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
            let environment = ProcessInfo.processInfo.environment
            let socketPath = try socket ?? ControlSocket.defaultPath(display: display, environment: environment)
            if socket == nil && (environment["MULTISCREEN_SOCKET"] ?? "").isEmpty {
                // The default, inside $XDG_RUNTIME_DIR: its `multiscreen` directory must be private.
                try ControlSocket.makePrivateDirectory(of: socketPath)
            }
            let fleetConfig = fleetConfiguration(logger: logger)
            app = try Application(options: options) { bus in
                var sources: [any MessageSource] = [try ControlServer(path: socketPath, bus: bus)]
                if let fleetConfig {
                    do {
                        var fleetOptions = FleetLink.Options()
                        fleetOptions.version = Multiscreen.version
                        sources.append(try FleetLink(config: fleetConfig, bus: bus, options: fleetOptions))
                    } catch {
                        logger.error("fleet link not started: \(error); the screens run without it")
                    }
                }
                return sources
            }
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(ExitStatus.startupFailure.rawValue)
        }
        let status = app.run()
        if status != .success { throw ExitCode(status.rawValue) }
    }

    /// `[fleet]` from the config, with `--fleet` as its broker; nil for no fleet link. A broken section is logged
    /// and leaves the kiosk without a fleet link (its screens never depend on it).
    private func fleetConfiguration(logger: Logger) -> FleetConfig? {
        let path = config ?? RoleConfig.defaultPath()
        do throws(FleetConfigError) {
            var section = try FleetConfig.load(path: path)
            if let fleet {
                let broker = try BrokerAddress(fleet)
                section?.broker = broker
                if section == nil { section = FleetConfig(broker: broker) }
            }
            try section?.validate()
            return section
        } catch {
            logger.error("fleet link not started: \(error)")
            return nil
        }
    }
}
