import ArgumentParser
import Foundation
import Logging
import MultiscreenApp
import Outputs
import Screens
import Wayland

/// `multiscreen outputs`: list the compositor's outputs and exit.
struct Outputs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outputs",
        abstract: "Print the outputs of the Wayland session and exit.",
        discussion: """
            Exit status: 0 when the outputs were printed ("no outputs" when there are none), 1 when there is no \
            compositor at the display or it fails, 64 for a usage error.
            """)

    @OptionGroup var logging: LoggingOptions
    @Option(help: "Wayland display name or socket path (default: $WAYLAND_DISPLAY).")
    var display: String?
    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    mutating func run() throws {
        logging.bootstrap()
        let outputs: [OutputInfo]
        do {
            outputs = try OutputSnapshot.take(display: display)
        } catch {
            Logger(label: "multiscreen").critical("\(error)")
            throw ExitCode(ExitStatus.startupFailure.rawValue)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(outputs), as: UTF8.self))
            return
        }
        if outputs.isEmpty { print("no outputs") }
        for output in outputs {
            let size = output.logicalSize
            print(
                "\(output.displayName)\t\(output.modeText)\tscale \(output.scale)\ttransform \(output.transform)"
                    + "\tat \(output.logicalX),\(output.logicalY) \(size.width)x\(size.height)"
                    + "\t\(output.description ?? "")")
        }
    }
}
