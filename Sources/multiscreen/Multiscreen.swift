import ArgumentParser
import Foundation
import Logging
import Logs

/// `multiscreen`: one application across every screen of a Wayland session.
struct Multiscreen: ParsableCommand {
    /// Reported by `--version` and in each kiosk's retained fleet status.
    static let version = "0.1.0-dev"

    // Every command names itself (`commandName`): a name swift-argument-parser derives from a command's type costs a
    // scan of every protocol conformance in the binary, at every start, for each such command (docs/benchmarks.md).
    static let configuration = CommandConfiguration(
        commandName: "multiscreen",
        abstract: "A fullscreen window on every Wayland output, followed live as screens come, go and change.",
        discussion: """
            Without a subcommand: `run` when $WAYLAND_DISPLAY is set, else `demo` (a private headless compositor \
            and a screenshot per screen).
            """,
        version: version,
        subcommands: [
            Run.self, Outputs.self, Demo.self, Bench.self, SendCommand.self, CardCommand.self, RoleCommand.self,
            ContentCommand.self, MessagesCommand.self, StatusCommand.self, EventsCommand.self, FleetCommand.self,
            LatencyCommand.self, WebCommand.self, MediaCommand.self, PlaylistCommand.self, ScheduleCommand.self,
            ScreenCommand.self,
            CaptureCommand.self, ConfigCommand.self,
        ],
        defaultSubcommand: nil)

    @OptionGroup var logging: LoggingOptions

    mutating func run() throws {
        // Parsed, not constructed: argument-parser only gives property wrappers their defaults when parsing.
        let arguments = ["--log-level", logging.logLevel.rawValue]
        if Self.hasWaylandSession(ProcessInfo.processInfo.environment) {
            var command = try Run.parse(arguments)
            try command.run()
        } else {
            var command = try Demo.parse(arguments)
            try command.run()
        }
    }

    /// Whether these arguments (the program's name dropped) start `run`: `run` first, or none with $WAYLAND_DISPLAY
    /// set, and no `--help` or `--version`. Decided before parsing, for work that must start before it
    /// (``MesaDriverPreload``); a `run` with `--log-level` before the subcommand starts without it.
    static func startsRun(_ arguments: [String], environment: [String: String]) -> Bool {
        guard !arguments.contains(where: { ["-h", "--help", "--version"].contains($0) }) else { return false }
        return arguments.first == Run.configuration.commandName
            || (arguments.isEmpty && hasWaylandSession(environment))
    }

    private static func hasWaylandSession(_ environment: [String: String]) -> Bool {
        environment["WAYLAND_DISPLAY"].map { !$0.isEmpty } ?? false
    }
}

/// `--log-level`, shared by every command. Logs go to standard error, one line each, flushed immediately
/// (tests and benchmarks read them while the process runs), each log call site at `info` and above rate-limited
/// (``LoggingSetup``).
struct LoggingOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "trace, debug, info, notice, warning, error or critical (default: $MULTISCREEN_LOG_LEVEL, else info).",
        transform: { text in
            guard let level = Logger.Level(rawValue: text) else {
                throw ValidationError("unknown log level '\(text)'")
            }
            return level
        })
    var logLevel: Logger.Level =
        Logger.Level(
            rawValue: ProcessInfo.processInfo.environment["MULTISCREEN_LOG_LEVEL"] ?? "") ?? .info

    func bootstrap() { LoggingSetup.bootstrap(level: logLevel) }
}
