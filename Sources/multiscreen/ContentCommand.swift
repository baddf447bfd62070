import ArgumentParser
import Messaging

/// `multiscreen content set SCREEN MODE`: what an external screen shows.
struct ContentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "content",
        abstract: "Change what a screen of a running Multiscreen shows.",
        subcommands: [Assign.self])

    struct Assign: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Show MODE on SCREEN when it is not the controller: messages, mirror, card or blank.",
            discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Argument(help: "The screen.")
        var screen: String
        @Argument(help: "messages, mirror, card or blank.")
        var mode: String

        func run() throws {
            try control.perform(.setContent(screen: screen, mode: mode), headline: "\(screen) shows \(mode)")
        }
    }
}
