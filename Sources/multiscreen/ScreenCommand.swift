import ArgumentParser
import Messaging

/// `multiscreen screen identify [--seconds N]`.
struct ScreenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screen",
        abstract: "Act on the screens of a running Multiscreen.",
        subcommands: [Identify.self])

    struct Identify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "identify",
            abstract: "Show every screen's name, mode and role over what it shows, for a few seconds.",
            discussion: "Which connector drives which panel, when wiring a wall. " + ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("How long, 1 to 60 (default 5).", valueName: "seconds"))
        var seconds: Double = Message.defaultIdentifySeconds

        func validate() throws {
            guard Message.identifySeconds.contains(seconds) else {
                throw ValidationError("--seconds must be from 1 to 60")
            }
        }

        func run() throws {
            let shown = seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)"
            try control.perform(.identifyScreens(seconds: seconds), headline: "screens identified for \(shown) s")
        }
    }
}
