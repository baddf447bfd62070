import ArgumentParser
import Foundation
import Messaging
import Outputs

extension PlaylistCommand {
    /// `multiscreen playlist interrupt`: an announcement over what screens play, for a while or until cleared.
    struct Interrupt: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "interrupt",
            abstract: "Play ITEMs (or a config playlist) over what screens show, for --seconds or until --clear.",
            discussion: """
                An ITEM is PATH_OR_URL[@SECONDS], as for `playlist set`. The interrupt starts with its first item on \
                every screen named at the same moment (one start time is sent for all of them), and when it ends the \
                screens show what they would have shown by then: their playlist at the item the clock says, their \
                schedule's, their page or their messages. `--clear` ends it early.
                \(ControlExit.discussion)
                """)

        @OptionGroup var control: ControlOptions
        @Option(name: .customLong("screen"), help: ArgumentHelp("A screen (repeat for several).", valueName: "name"))
        var screens: [String] = []
        @Flag(help: "Every screen that is not the controller (with --clear: every one that plays an interrupt).")
        var allExternal = false
        @Option(
            help: ArgumentHelp("How long the interrupt lasts, 1 to 86400 (default: until --clear).", valueName: "n"))
        var seconds: Double?
        @Option(
            help:
                "How each picture fills the screen: contain, cover, stretch or center (default: contain, or the playlist's)."
        )
        var fit: MediaFit?
        @Option(help: ArgumentHelp("A [[playlist]] of the config to play, instead of ITEMs.", valueName: "name"))
        var playlist: String?
        @Flag(help: "End the interrupt on the screens instead.")
        var clear = false
        @Argument(help: ArgumentHelp("The items.", valueName: "PATH_OR_URL[@SECONDS]"))
        var items: [String] = []

        func validate() throws {
            guard screens.isEmpty != !allExternal else {
                throw ValidationError("give --screen NAME… or --all-external")
            }
            if clear {
                guard items.isEmpty, playlist == nil, seconds == nil, fit == nil else {
                    throw ValidationError("--clear takes only --screen NAME… or --all-external")
                }
                return
            }
            guard items.isEmpty != (playlist == nil) else { throw ValidationError("give ITEMs or --playlist NAME") }
            if let seconds, !InterruptRequest.seconds.contains(seconds) {
                throw ValidationError("--seconds takes 1 to 86400")
            }
            if !items.isEmpty, let problem = Playlist.problem(items: try PlaylistCommand.items(items)) {
                throw ValidationError(problem)
            }
        }

        func run() throws {
            if clear {
                let targets = allExternal ? try PlaylistCommand.externalScreens(control, having: "interrupt") : screens
                guard !targets.isEmpty else {
                    control.printError("error: no screen plays an interrupt")
                    throw ExitCode(ControlExit.errorReply)
                }
                try PlaylistCommand.perform(control, on: targets) { screen in
                    (.interruptPlaylist(screen: screen, request: .clear), "interrupt cleared on \(screen)")
                }
                return
            }
            let source: InterruptRequest.Source =
                if let playlist { .named(playlist) } else { .items(try PlaylistCommand.items(items)) }
            let targets = allExternal ? try PlaylistCommand.externalScreens(control) : screens
            guard !targets.isEmpty else {
                control.printError("error: no external screen to play on")
                throw ExitCode(ControlExit.errorReply)
            }
            // Once for every screen, so that they all start the first item together.
            let epoch = Date().timeIntervalSince1970
            let request = InterruptRequest.start(source: source, fit: fit, seconds: seconds, epoch: epoch)
            let what = playlist.map { "playlist \($0)" } ?? "\(items.count) items"
            try PlaylistCommand.perform(control, on: targets) { screen in
                (.interruptPlaylist(screen: screen, request: request), "interrupt of \(what) on \(screen)")
            }
        }
    }
}
