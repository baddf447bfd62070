import ArgumentParser
import Messaging

/// `multiscreen role set SCREEN ROLE`: make a screen the controller or an external one.
struct RoleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "role",
        abstract: "Change the role of a screen of a running Multiscreen.",
        subcommands: [Assign.self])

    struct Assign: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Give SCREEN the role ROLE (controller or external).", discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Argument(help: "The screen.")
        var screen: String
        /// Not checked here: which roles exist is the running instance's business, and it answers precisely.
        @Argument(help: "controller or external.")
        var role: String

        func run() throws {
            let result = try control.request(.setRole(screen: screen, role: role))
            print("\(screen) is now \(role)")
            for line in ResultText.lines(of: result, indent: "  ") { print(line) }
        }
    }
}
