import ArgumentParser
import Foundation
import Messaging
import Outputs

/// `multiscreen media show|stop`: an image or a video on a screen of a running Multiscreen.
struct MediaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media",
        abstract: "Show an image or a video on a screen of a running Multiscreen, or stop showing it.",
        subcommands: [Show.self, Stop.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract:
                "Show the image (PNG, JPEG, WebP, GIF, SVG) or video (MP4, WebM, MKV…) in FILE on an external screen.",
            discussion: """
                The reply comes once the file is read: an image decoded, a video's first frame ready. A file that \
                cannot be shown is refused with the reason (exit 1) and the screen keeps what it showed.
                \(ControlExit.discussion)
                """)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("The screen.", valueName: "name"))
        var screen: String
        @Option(help: "How the picture fills the screen: contain (letterboxed), cover (cropped), stretch or center.")
        var fit: MediaFit = .contain
        @Option(help: "Turn the picture clockwise by 0, 90, 180 or 270 degrees (a panel mounted on its side).")
        var rotate: Int = 0
        @Flag(help: "Play a video again from the start when it ends (else it stays on its last frame).")
        var loop = false
        @Argument(help: "The file, absolute or relative to this directory.")
        var file: String

        func validate() throws {
            guard MediaRotation(rawValue: rotate) != nil else {
                throw ValidationError("--rotate must be 0, 90, 180 or 270")
            }
        }

        func run() throws {
            // The running Multiscreen has its own working directory: it is given the file's absolute path.
            let path =
                file.hasPrefix("/")
                ? file
                : URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                    .appendingPathComponent(file).standardizedFileURL.path
            try control.perform(
                .showMedia(
                    screen: screen, path: path, fit: fit, rotation: MediaRotation(rawValue: rotate) ?? .none,
                    loop: loop),
                headline: "\(path) on \(screen)")
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stop",
            abstract: "Stop showing an image or a video on a screen: it shows messages again.",
            discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("The screen.", valueName: "name"))
        var screen: String

        func run() throws {
            try control.perform(.stopMedia(screen: screen), headline: "media stopped on \(screen)")
        }
    }
}

extension MediaFit: ExpressibleByArgument {}
