import ArgumentParser
import Foundation
import Messaging

extension PlaylistCommand {
    /// `multiscreen playlist history [--screen NAME] [--limit N] [--json]`: proof of play.
    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "Print the playlist items each screen showed, oldest first (proof of play).",
            discussion: """
                One line per item's turn on a screen: when it began and ended, when the compositor first showed it \
                and how many frames it showed ("never shown" when none was), in local time. The kiosk keeps the \
                newest 1000 in memory and more in play-history.jsonl beside its state file.
                \(ControlExit.discussion)
                """)

        @OptionGroup var control: ControlOptions
        @Option(help: ArgumentHelp("Only this screen's items.", valueName: "name"))
        var screen: String?
        @Option(help: "How many of the newest to print, 1 to \(Message.mostHistoryRecords).")
        var limit = Message.defaultHistoryRecords
        @Flag(help: "Print one JSON object per item's turn, for scripts.")
        var json = false

        func validate() throws {
            guard (1...Message.mostHistoryRecords).contains(limit) else {
                throw ValidationError("--limit takes 1 to \(Message.mostHistoryRecords)")
            }
        }

        func run() throws {
            let result = try control.request(.playlistHistory(screen: screen, limit: limit))
            guard case .array(let records)? = result["records"] else { throw ExitCode(ControlExit.noReply) }
            if json {
                for record in records { print(record.serialized) }
                return
            }
            if records.isEmpty { print("no playlist item shown yet") }
            for case .object(let fields) in records { print(Self.line(fields)) }
        }

        /// `2026-11-27 10:00:00–10:00:10  HDMI-A-2  #2 /srv/lunch.png  shown 10:00:00.016, 1 frame`
        static func line(_ fields: [String: JSONValue]) -> String {
            func time(_ key: String, _ format: String) -> String? {
                guard case .number(let seconds)? = fields[key] else {
                    if case .integer(let seconds)? = fields[key] { return time(Double(seconds), format) }
                    return nil
                }
                return time(seconds, format)
            }
            func time(_ seconds: Double, _ format: String) -> String {
                let formatter = DateFormatter()
                formatter.dateFormat = format
                return formatter.string(from: Date(timeIntervalSince1970: seconds))
            }
            let text: (String) -> String = {
                if case .string(let value)? = fields[$0] { return value.logSafe }
                return "?"
            }
            let index = fields["index"].flatMap { if case .integer(let i) = $0 { i } else { nil } } ?? 0
            let frames = fields["frames"].flatMap { if case .integer(let i) = $0 { i } else { nil } } ?? 0
            let shown =
                time("shownAt", "HH:mm:ss.SSS").map { "shown \($0), \(frames) frame\(frames == 1 ? "" : "s")" }
                ?? "never shown"
            let span = "\(time("start", "yyyy-MM-dd HH:mm:ss") ?? "?")–\(time("end", "HH:mm:ss") ?? "?")"
            return "\(span)  \(text("screen"))  #\(index) \(text("source"))  \(shown)"
        }
    }
}
