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
    @Option(
        help: ArgumentHelp(
            "Show it for this many seconds only (default: until newer ones push it out).", valueName: "seconds"))
    var ttl: Double?
    @Argument(help: "The text (one argument; quote it).")
    var text: String

    func validate() throws {
        if let ttl, !(ttl > 0 && ttl <= Message.maximumTTL) {
            throw ValidationError("--ttl takes 0 < seconds ≤ \(Int(Message.maximumTTL))")
        }
    }

    func run() throws {
        try control.perform(
            .send(text: text, screen: screen, ttl: ttl), headline: screen.map { "sent to \($0)" } ?? "sent")
    }
}
