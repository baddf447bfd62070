import ArgumentParser
import Messaging

/// `multiscreen web open|close|reload`: a web page on a screen of a running Multiscreen.
struct WebCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Show, close or reload a web page on a screen of a running Multiscreen.",
        subcommands: [Open.self, Close.self, Reload.self])

    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "open",
            abstract: "Show the page at URL (file://, http:// or https://) on a screen, the controller's too.",
            discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("The screen.", valueName: "name"))
        var screen: String
        @Argument(help: "The page's URL.")
        var url: String

        func run() throws {
            try control.perform(.openWeb(screen: screen, url: url), headline: "web page on \(screen)")
        }
    }

    struct Close: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "close",
            abstract: "Stop showing a web page on a screen.", discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("The screen.", valueName: "name"))
        var screen: String

        func run() throws {
            try control.perform(.closeWeb(screen: screen), headline: "web page closed on \(screen)")
        }
    }

    struct Reload: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reload",
            abstract: "Load the page on a screen again.", discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("The screen.", valueName: "name"))
        var screen: String

        func run() throws {
            try control.perform(.reloadWeb(screen: screen), headline: "web page reloaded on \(screen)")
        }
    }
}
