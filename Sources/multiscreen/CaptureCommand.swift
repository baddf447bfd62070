import ArgumentParser
import Foundation
import Messaging

/// `multiscreen capture --screen NAME -o FILE.png`: a picture of what a screen shows, from Multiscreen's own drawing.
struct CaptureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Write a PNG of what a screen of a running Multiscreen shows.",
        discussion: """
            The screen is drawn again off screen and read back, with the picture, video frame or mirrored frame the \
            compositor shows over it, at the screen's size in pixels: any screen, not only the first, whatever the \
            compositor lets a screenshot tool see. The running Multiscreen writes the file (replacing one there), so \
            its user must be able to write it.
            \(ControlExit.discussion)
            """)

    @OptionGroup var control: ControlOptions
    @Option(help: ArgumentHelp("The screen.", valueName: "name"))
    var screen: String
    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("The PNG file to write.", valueName: "file"))
    var output: String

    func run() throws {
        let path = URL(fileURLWithPath: output).standardizedFileURL.path
        try control.perform(.captureScreen(screen: screen, path: path), headline: "captured \(screen)")
    }
}
