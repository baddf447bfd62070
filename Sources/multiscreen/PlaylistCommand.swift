import ArgumentParser
import Foundation
import Messaging
import Outputs

/// `multiscreen playlist set|clear|show|next|previous|pause|resume|interrupt|history`: items in turn on screens of a
/// running Multiscreen, switched by the wall clock, stepped or held by hand, announcements played over them for a
/// while, and the proof of what each screen showed.
struct PlaylistCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "playlist",
        abstract: "Play images, videos and web pages in turn on screens of a running Multiscreen.",
        subcommands: [
            Set.self, Clear.self, Show.self, Next.self, Previous.self, Pause.self, Resume.self, Interrupt.self,
            History.self,
        ])

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Play ITEMs in turn on external screens, each for its seconds, over and over.",
            discussion: """
                An ITEM is PATH_OR_URL[@SECONDS]: an image or video file (absolute, or relative to this directory), \
                a web page's URL, text:WORDS (a text slide), card:WORDS (a card) or blank, shown for SECONDS \
                (default: a video's own length, 10 for anything else). Which item plays is the wall clock's business: every \
                screen given the same items shows the same one and switches at the same moment, on this kiosk and on \
                any other whose clock agrees, and a restarted kiosk picks up where the clock says.
                \(ControlExit.discussion)
                """)

        @OptionGroup var control: ControlOptions
        @Option(name: .customLong("screen"), help: ArgumentHelp("A screen (repeat for several).", valueName: "name"))
        var screens: [String] = []
        @Flag(help: "Every screen that is not the controller.")
        var allExternal = false
        @Option(help: "How each picture fills the screen: contain, cover, stretch or center.")
        var fit: MediaFit = .contain
        @Option(help: "When a cycle through the items began, in seconds since 1970 (default 0: the same everywhere).")
        var epoch: Double = 0
        @Flag(
            help: """
                Spread the items over the screens side by side, in the order given: each shows the item after the one \
                before it shows, and all move along together.
                """)
        var spread = false
        @Flag(help: "Each item fades in over the one before, for 1 s (at most half its time), instead of a cut.")
        var crossfade = false
        @Argument(help: ArgumentHelp("The items.", valueName: "PATH_OR_URL[@SECONDS]"))
        var items: [String]

        func validate() throws {
            guard screens.isEmpty != !allExternal else {
                throw ValidationError("give --screen NAME… or --all-external")
            }
            if let problem = Playlist.problem(items: try parsedItems()) { throw ValidationError(problem) }
        }

        /// The items as the running Multiscreen takes them (``PlaylistCommand/items(_:)``), crossfading if asked.
        func parsedItems() throws -> [Playlist.Item] {
            try PlaylistCommand.items(items).map { item in
                var item = item
                if crossfade { item.transition = .crossfade }
                return item
            }
        }

        func run() throws {
            let playlist = Playlist(items: try parsedItems(), fit: fit, epoch: epoch)
            let targets = allExternal ? try PlaylistCommand.externalScreens(control) : screens
            guard !targets.isEmpty else {
                control.printError("error: no external screen to play on")
                throw ExitCode(ControlExit.errorReply)
            }
            try PlaylistCommand.perform(control, on: targets) { screen in
                var placed = playlist
                if spread { placed.offset = targets.firstIndex(of: screen)! % playlist.items.count }
                let place = spread ? ", from item \(placed.offset + 1)" : ""
                return (
                    .setPlaylist(screen: screen, playlist: placed),
                    "playlist of \(playlist.items.count) items on \(screen)\(place)"
                )
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear",
            abstract: "Stop the playlist on a screen: it shows messages again.", discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("The screen.", valueName: "name"))
        var screen: String

        func run() throws {
            try control.perform(.clearPlaylist(screen: screen), headline: "playlist cleared on \(screen)")
        }
    }

    /// ITEMs (`PATH_OR_URL[@SECONDS]`) as the running Multiscreen takes them: sources absolute (it has a working
    /// directory of its own), seconds given, else a video's own length (no seconds) and 10 for anything else.
    static func items(_ texts: [String]) throws -> [Playlist.Item] {
        try texts.map { text in
            var source = text
            var seconds: Double?
            if let at = text.lastIndex(of: "@"), let given = Double(text[text.index(after: at)...]) {
                source = String(text[..<at])
                seconds = given
            }
            guard !source.isEmpty else { throw ValidationError("an item names no file or URL: \(text)") }
            var item = Playlist.Item(source: source, seconds: seconds)
            if seconds == nil && item.mediaKind != .video { item.seconds = 10 }
            if !item.namesFile || source.hasPrefix("/") { return item }
            let absolute = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                .appendingPathComponent(source).standardizedFileURL.path
            return Playlist.Item(source: absolute, seconds: item.seconds)
        }
    }

    /// The screens `status` lists that are not the controller, those whose entry has `key` only when given.
    static func externalScreens(_ control: ControlOptions, having key: String? = nil) throws -> [String] {
        let status = try control.request(.status)
        guard case .array(let all)? = status["screens"] else { throw ExitCode(ControlExit.noReply) }
        return all.compactMap { screen in
            guard case .object(let fields) = screen, case .string(let name)? = fields["name"],
                fields["role"] != .string("controller"), key.map({ fields[$0] != nil }) ?? true
            else { return nil }
            return name
        }
    }

    /// One request per screen, each with an id of its own (the same id would be answered as a retry), and what it
    /// printed: the first refusal stops there, as the exit status says.
    static func perform(
        _ control: ControlOptions, on screens: [String], _ request: (String) -> (Message, headline: String)
    ) throws {
        for (index, screen) in screens.enumerated() {
            var options = control
            options.requestId = control.requestId.map { screens.count > 1 ? "\($0).\(index + 1)" : $0 }
            let (message, headline) = request(screen)
            try options.perform(message, headline: headline)
        }
    }
}
