import ArgumentParser
import Messaging

/// `multiscreen send TEXT [--screen NAME]`: what the controller's Send button does, from a shell.
struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send a message to the screens of a running Multiscreen.",
        discussion: ControlExit.discussion)

    @OptionGroup var control: ControlOptions
    @Option(help: ArgumentHelp("Only this screen (default: wherever messages go).", valueName: "name"))
    var screen: String?
    @Argument(help: "The text (one argument; quote it).")
    var text: String

    func run() throws {
        let result = try control.request(.send(text: text, screen: screen))
        print(screen.map { "sent to \($0)" } ?? "sent")
        for line in ResultText.lines(of: result, indent: "  ") { print(line) }
    }
}
