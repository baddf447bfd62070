import ArgumentParser
import Foundation
import Messaging
import Outputs

extension PlaylistCommand {
    /// `multiscreen playlist show --screen NAME [--json]`: what a screen's playlist is and where it is.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print the playlist a screen plays: its items, where it came from, the item now and until when.",
            discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("The screen.", valueName: "name"))
        var screen: String
        @Flag(help: "Print the reply as one JSON object, for scripts.")
        var json = false

        func run() throws {
            if json {
                print(JSONValue.object(try control.request(.showPlaylist(screen: screen))).serialized)
            } else {
                try control.perform(.showPlaylist(screen: screen), headline: "playlist on \(screen)")
            }
        }
    }

    /// The screens a step is taken on, and the one moment it is taken at.
    struct StepOptions: ParsableArguments {
        @OptionGroup var control: ControlOptions
        @Option(name: .customLong("screen"), help: ArgumentHelp("A screen (repeat for several).", valueName: "name"))
        var screens: [String] = []
        @Flag(help: "Every screen that is not the controller and plays a playlist.")
        var allExternal = false

        func validate() throws {
            guard screens.isEmpty != !allExternal else {
                throw ValidationError("give --screen NAME… or --all-external")
            }
        }

        /// Takes `step` on every screen named, all at one moment, so that screens that switched together go on
        /// switching together.
        func take(_ step: PlaylistStep) throws {
            let targets = allExternal ? try PlaylistCommand.externalScreens(control, having: "playlist") : screens
            guard !targets.isEmpty else {
                control.printError("error: no screen plays a playlist")
                throw ExitCode(ControlExit.errorReply)
            }
            let at = Date().timeIntervalSince1970
            try PlaylistCommand.perform(control, on: targets) { screen in
                (.stepPlaylist(screen: screen, step: step, at: at), "playlist on \(screen): \(step.rawValue)")
            }
        }
    }

    static let stepDiscussion = """
        The step moves where the playlist's cycle begins (or holds it); the wall clock decides every switch after it. \
        It lasts while the screen plays that playlist: another playlist set, or a schedule that moves on, starts from \
        the clock again. With several screens, all take the step at one moment.
        \(ControlExit.discussion)
        """

    struct Next: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "next",
            abstract: "Show the next item of the playlist now.", discussion: PlaylistCommand.stepDiscussion)
        @OptionGroup var options: StepOptions
        func run() throws { try options.take(.next) }
    }

    struct Previous: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "previous",
            abstract: "Show the previous item of the playlist now.", discussion: PlaylistCommand.stepDiscussion)
        @OptionGroup var options: StepOptions
        func run() throws { try options.take(.previous) }
    }

    struct Pause: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pause",
            abstract: "Hold the item shown now: the playlist stops switching until resumed.",
            discussion: PlaylistCommand.stepDiscussion)
        @OptionGroup var options: StepOptions
        func run() throws { try options.take(.pause) }
    }

    struct Resume: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resume",
            abstract: "Go on from the held item, which gets the rest of its time.",
            discussion: PlaylistCommand.stepDiscussion)
        @OptionGroup var options: StepOptions
        func run() throws { try options.take(.resume) }
    }
}
