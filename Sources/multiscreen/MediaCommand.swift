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
                cannot be shown is refused with the reason and the screen keeps what it showed.

                Several screens switch together: `--screen A --screen B FILE` shows one file on both (decoded once), \
                `--screen A FILE1 --screen B FILE2` a file on each (paired in order). All of them are read first, \
                then switch at one moment of the wall clock, \(Self.startLead) s after the command, and their videos \
                play in step from there. Any screen refused is reported; the others still switch.
                \(ControlExit.discussion)
                """)

        /// How long after the command screens named together switch: time for every file to be read and every video
        /// to be ready to play its first frame, so that none misses the moment. Warm, two 320×240 H.264 pipelines were
        /// ready within 0.3 s here; the first video after Multiscreen started (GStreamer and its decoders loaded
        /// then, from a cold disk) took over 1 s. A video that misses it still plays in step, from where the clock
        /// says, only its first frame late. The same margin as a playlist's next video is read ahead by.
        static let startLead = 1.5

        @OptionGroup var control: ControlOptions
        @Option(
            name: .customLong("screen"),
            help: ArgumentHelp("The screen (repeat for several, which switch together).", valueName: "name"))
        var screens: [String]
        @Option(help: "How the picture fills the screen: contain (letterboxed), cover (cropped), stretch or center.")
        var fit: MediaFit = .contain
        @Option(help: "Turn the picture clockwise by 0, 90, 180 or 270 degrees (a panel mounted on its side).")
        var rotate: Int = 0
        @Flag(help: "Play a video again from the start when it ends (else it stays on its last frame).")
        var loop = false
        @Flag(
            help: """
                Play the video's sound on the first --screen (the others stay muted): sound plays on one screen at a \
                time.
                """)
        var audio = false
        @Argument(help: "The file, absolute or relative to this directory (one per screen, or one for all).")
        var files: [String]

        func validate() throws {
            guard MediaRotation(rawValue: rotate) != nil else {
                throw ValidationError("--rotate must be 0, 90, 180 or 270")
            }
            guard !screens.isEmpty else { throw ValidationError("give --screen NAME") }
            guard files.count == 1 || files.count == screens.count else {
                throw ValidationError(
                    "give one FILE for every screen, or one for all (\(screens.count) screens, \(files.count) files)")
            }
            guard Set(screens).count == screens.count else { throw ValidationError("a screen is named twice") }
            try control.validateBatch(of: screens.count)
        }

        func run() throws {
            // The running Multiscreen has its own working directory: it is given each file's absolute path.
            let paths = files.map { file in
                file.hasPrefix("/")
                    ? file
                    : URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                        .appendingPathComponent(file).standardizedFileURL.path
            }
            let at = screens.count > 1 ? Date().timeIntervalSince1970 + Self.startLead : nil
            try control.performAll(
                screens.enumerated().map { index, screen in
                    let path = paths.count == 1 ? paths[0] : paths[index]
                    return (
                        .showMedia(
                            screen: screen, path: path, fit: fit, rotation: MediaRotation(rawValue: rotate) ?? .none,
                            loop: loop, audio: audio && index == 0, at: at),
                        "\(path) on \(screen)"
                    )
                })
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
