import ArgumentParser
import Messaging

/// `multiscreen role set SCREEN ROLE [--force]`, `multiscreen role reset [SCREEN]`.
struct RoleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "role",
        abstract: "Change the role of a screen of a running Multiscreen.",
        subcommands: [Assign.self, Reset.self])

    struct Assign: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Give SCREEN the role ROLE (controller, external, or a role the config's rules name).",
            discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Argument(help: "The screen.")
        var screen: String
        /// Not checked here: which roles exist is the running instance's business, and it answers precisely.
        @Argument(help: "controller, external, or a role the config's rules name.")
        var role: String
        @Flag(help: "Allow a change that leaves no screen showing the controller UI.")
        var force = false

        func run() throws {
            try control.perform(
                .setRole(screen: screen, role: role, force: force), headline: "\(screen) is now \(role)")
        }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset",
            abstract:
                "Forget the roles and content modes set at run time for SCREEN (or every monitor), so the config's rules apply again.",
            discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Argument(help: "The screen (default: every monitor).")
        var screen: String?

        func run() throws {
            try control.perform(.resetRole(screen: screen), headline: "roles reset for \(screen ?? "every monitor")")
        }
    }
}
