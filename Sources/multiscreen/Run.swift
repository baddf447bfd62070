import ArgumentParser
import Foundation
import Logging
import Messaging
import MultiscreenApp
import PhoneRemote
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
    @Option(
        help: ArgumentHelp(
            "Serve the phone remote (a web page and WebSocket) at [HOST:]PORT; HOST defaults to 127.0.0.1.",
            discussion: "Give the address phones reach this machine by (e.g. 192.168.1.20:8080) to serve them.",
            valueName: "[HOST:]PORT"))
    var remote: String?
    @Option(help: "Phone remote: seconds an unused code lasts before it is replaced.")
    var remoteTTL: Double = 300
    @Option(help: "Phone remote: seconds without a message before the controller loses control.")
    var remoteIdle: Double = 60
    @Option(help: "Phone remote: seconds of control before a fresh code is shown for the next visitor.")
    var remoteHold: Double = 300

    mutating func run() throws {
        logging.bootstrap()
        let logger = Logger(label: "multiscreen")
        let app: Application
        do {
            var options = Application.Options(display: display)
            options.configPath = config
            options.statePath = state
            let socketPath =
                try socket
                ?? ControlSocket.defaultPath(display: display, environment: ProcessInfo.processInfo.environment)
            let remoteAddress = try remote.map(Self.parseListen)
            var remoteOptions = PhoneRemoteServer.Options()
            remoteOptions.hub.policy.ttl = remoteTTL
            remoteOptions.hub.policy.idle = remoteIdle
            remoteOptions.hub.policy.hold = remoteHold
            app = try Application(options: options) { bus in
                var sources: [any MessageSource] = [try ControlServer(path: socketPath, bus: bus)]
                if let (host, port) = remoteAddress {
                    let remoteLogger = Logger(label: "multiscreen.remote")
                    sources.append(
                        try PhoneRemoteServer(host: host, port: port, bus: bus, options: remoteOptions) {
                            display, url in
                            switch display {
                            case .code(let code):
                                remoteLogger.info("remote code \(code.short) at \(url)")
                                remoteLogger.debug("remote link \(url)?code=\(code.token)")
                            case .inControl: remoteLogger.info("remote: someone is in control")
                            case .locked: remoteLogger.warning("remote: code entry locked after too many wrong codes")
                            }
                        })
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

    /// `8080` → 127.0.0.1:8080; `192.168.1.20:8080`; `[::1]:8080`.
    static func parseListen(_ text: String) throws -> (String, Int) {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        }
        guard let port = Int(portText), (0...65535).contains(port), !host.isEmpty else {
            throw ValidationError("--remote wants [HOST:]PORT, got \"\(text)\"")
        }
        return (host, port)
    }
}
