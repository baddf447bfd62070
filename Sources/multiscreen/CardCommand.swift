import ArgumentParser
import Messaging

/// `multiscreen card open|close|reopen|discard`: one card of content on a chosen screen.
struct CardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "card",
        abstract: "Open, close, reopen or discard a card on a screen of a running Multiscreen.",
        subcommands: [Open.self, Close.self, Reopen.self, Discard.self])

    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "open",
            abstract: "Open a card showing TEXT on a screen (replacing the card there).",
            discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("The screen.", valueName: "name"))
        var screen: String
        @Argument(help: "The card's text (one argument; quote it).")
        var text: String

        func run() throws {
            try control.perform(.openCard(screen: screen, text: text), headline: "card opened on \(screen)")
        }
    }

    struct Close: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "close",
            abstract: "Close the card on a screen.", discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("The screen.", valueName: "name"))
        var screen: String

        func run() throws {
            try control.perform(.closeCard(screen: screen), headline: "card closed on \(screen)")
        }
    }

    struct Reopen: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reopen",
            abstract: "Open card ID again on a screen (a card waiting for a screen, or one open elsewhere).",
            discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("The screen.", valueName: "name"))
        var screen: String
        @Argument(help: "The card's id (see `multiscreen status`).")
        var id: UInt32

        func run() throws {
            try control.perform(.reopenCard(id: id, screen: screen), headline: "card #\(id) open on \(screen)")
        }
    }

    struct Discard: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "discard",
            abstract: "Remove card ID for good, waiting or open.", discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Argument(help: "The card's id (see `multiscreen status`).")
        var id: UInt32

        func run() throws {
            try control.perform(.discardCard(id: id), headline: "card #\(id) discarded")
        }
    }
}
