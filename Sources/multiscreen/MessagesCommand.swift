import ArgumentParser
import Messaging

/// `multiscreen messages clear [--screen NAME]`.
struct MessagesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages",
        abstract: "Manage the messages of a running Multiscreen.",
        subcommands: [Clear.self])

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear",
            abstract: "Clear the messages one screen shows, or the whole log.", discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("Only this screen (default: every screen, the whole log).", valueName: "name"))
        var screen: String?

        func run() throws {
            try control.perform(.clearMessages(screen: screen), headline: "cleared \(screen ?? "every screen")")
        }
    }
}
