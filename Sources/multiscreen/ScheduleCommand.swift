import ArgumentParser
import Foundation
import Messaging

/// `multiscreen schedule show|set`: which `[[schedule]]` of the config each screen follows, and choosing another at
/// run time.
struct ScheduleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Show or choose the config schedule each screen of a running Multiscreen follows.",
        subcommands: [Show.self, Set.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print each screen's schedule, what it asks for now and when that changes.",
            discussion: ControlExit.discussion)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("Only this screen.", valueName: "name"))
        var screen: String?
        @Flag(help: "Print the reply as one JSON object, for scripts.")
        var json = false

        func run() throws {
            let result = try control.request(.showSchedule(screen: screen))
            if json {
                print(JSONValue.object(result).serialized)
                return
            }
            guard case .array(let screens)? = result["screens"] else { throw ExitCode(ControlExit.noReply) }
            for case .object(let fields) in screens { print(Self.line(fields)) }
        }

        /// `HDMI-A-2  menu-board (rule)  now: playlist lunch  until 2026-11-27 15:00`
        static func line(_ fields: [String: JSONValue]) -> String {
            let name = fields["screen"].flatMap { if case .string(let s) = $0 { s.logSafe } else { nil } } ?? "?"
            guard case .string(let schedule)? = fields["schedule"] else { return "\(name)  no schedule" }
            let from = fields["from"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "rule"
            let now: String =
                switch fields["now"] {
                case .object(let slot)?:
                    if case .string(let playlist)? = slot["playlist"] { "playlist \(playlist.logSafe)" } else { "?" }
                case .string("off")?: "screen off"
                default: "nothing (the screen's own content)"
                }
            var line = "\(name)  \(schedule.logSafe) (\(from == "set" ? "set at run time" : "its rule's"))  now: \(now)"
            if case .number(let next)? = fields["next"] {
                let formatter = DateFormatter()
                formatter.dateFormat = "yyyy-MM-dd HH:mm"
                line += "  until \(formatter.string(from: Date(timeIntervalSince1970: next)))"
            }
            return line
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Make a screen follow a [[schedule]] of the config, or its rule's again (--rule).",
            discussion: """
                A schedule that names playlists puts the screen in playlist mode, in place of a playlist set at run \
                time; one whose periods only turn the screen off leaves what it shows alone. The choice is saved and \
                lasts until set again, or until the config no longer has that schedule.
                \(ControlExit.discussion)
                """)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("The screen.", valueName: "name"))
        var screen: String
        @Flag(help: "Follow the schedule the screen's rule names (if any) again.")
        var rule = false
        @Argument(help: ArgumentHelp("A [[schedule]] of the config.", valueName: "name"))
        var schedule: String?

        func validate() throws {
            guard (schedule == nil) == rule else { throw ValidationError("give a schedule's NAME or --rule") }
        }

        func run() throws {
            try control.perform(
                .setSchedule(screen: screen, schedule: schedule),
                headline: "\(screen) follows \(schedule.map { "schedule \($0)" } ?? "its rule's schedule")")
        }
    }
}
