import ArgumentParser
import Messaging

/// `multiscreen status [--json]`: what a running Multiscreen reports about itself.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print the status of a running Multiscreen.",
        discussion: ControlExit.discussion)

    @OptionGroup var control: ControlOptions
    @Flag(help: "Print the result object as JSON (one line), for scripts.")
    var json = false

    func run() throws {
        let result = try control.request(.status)
        if json {
            print(JSONValue.object(result).serialized)
        } else {
            let lines = ResultText.lines(of: result)
            print(lines.isEmpty ? "running" : lines.joined(separator: "\n"))
        }
    }
}
