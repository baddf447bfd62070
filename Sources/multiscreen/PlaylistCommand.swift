import ArgumentParser
import Foundation
import Messaging
import Outputs

/// `multiscreen playlist set|clear|interrupt|history`: items in turn on screens of a running Multiscreen, switched by
/// the wall clock, announcements played over them for a while, and the proof of what each screen showed.
struct PlaylistCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "playlist",
        abstract: "Play images, videos and web pages in turn on screens of a running Multiscreen.",
        subcommands: [Set.self, Clear.self, Interrupt.self, History.self])

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play ITEMs in turn on external screens, each for its seconds, over and over.",
            discussion: """
                An ITEM is PATH_OR_URL[@SECONDS]: an image or video file (absolute, or relative to this directory) or \
                a web page's URL, shown for SECONDS (default 10). Which item plays is the wall clock's business: every \
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
        @Argument(help: ArgumentHelp("The items.", valueName: "PATH_OR_URL[@SECONDS]"))
        var items: [String]

        func validate() throws {
            guard screens.isEmpty != !allExternal else {
                throw ValidationError("give --screen NAME… or --all-external")
            }
            if let problem = Playlist.problem(items: try parsedItems()) { throw ValidationError(problem) }
        }

        /// The items as the running Multiscreen takes them: sources absolute, seconds given or 10.
        func parsedItems() throws -> [Playlist.Item] { try PlaylistCommand.items(items) }

        func run() throws {
            let playlist = Playlist(items: try parsedItems(), fit: fit, epoch: epoch)
            let targets = allExternal ? try PlaylistCommand.externalScreens(control) : screens
            guard !targets.isEmpty else {
                control.printError("error: no external screen to play on")
                throw ExitCode(ControlExit.errorReply)
            }
            try PlaylistCommand.perform(control, on: targets) { screen in
                (
                    .setPlaylist(screen: screen, playlist: playlist),
                    "playlist of \(playlist.items.count) items on \(screen)"
                )
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop the playlist on a screen: it shows messages again.", discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("The screen.", valueName: "name"))
        var screen: String

        func run() throws {
            try control.perform(.clearPlaylist(screen: screen), headline: "playlist cleared on \(screen)")
        }
    }

    /// ITEMs (`PATH_OR_URL[@SECONDS]`) as the running Multiscreen takes them: sources absolute (it has a working
    /// directory of its own), seconds given or 10.
    static func items(_ texts: [String]) throws -> [Playlist.Item] {
        try texts.map { text in
            var source = text
            var seconds = 10.0
            if let at = text.lastIndex(of: "@"), let given = Double(text[text.index(after: at)...]) {
                source = String(text[..<at])
                seconds = given
            }
            guard !source.isEmpty else { throw ValidationError("an item names no file or URL: \(text)") }
            let item = Playlist.Item(source: source, seconds: seconds)
            if item.isPage || item.isAsset || source.hasPrefix("/") { return item }
            let absolute = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                .appendingPathComponent(source).standardizedFileURL.path
            return Playlist.Item(source: absolute, seconds: seconds)
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
