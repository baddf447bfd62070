import ArgumentParser
import Messaging
import Screens

/// `multiscreen content set SCREEN MODE`: what an external screen shows.
struct ContentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "content",
        abstract: "Change what a screen of a running Multiscreen shows.",
        subcommands: [Assign.self])

    struct Assign: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Show MODE on SCREEN when it is not the controller: \(Self.modes).",
            discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Argument(help: "The screen.")
        var screen: String
        @Argument(
            help: ArgumentHelp(
                "\(Self.modes) (web: the page opened with `web open`, else the config rule's url; image, video: the file of `media show` or the rule's path; playlist: the list of `playlist set`).",
                valueName: "mode"))
        var mode: String

        /// Every mode the product knows, from the one list it checks requests against.
        static let modes: String = {
            let names = ContentMode.allCases.map(\.rawValue)
            return names.dropLast().joined(separator: ", ") + " or " + names.last!
        }()

        func run() throws {
            try control.perform(.setContent(screen: screen, mode: mode), headline: "\(screen) shows \(mode)")
        }
    }
}
