import Foundation
import Messaging
import Screens

/// Proof of play: what the display thread saw each screen show is kept (``PlayHistory``), published as
/// `playlist.played`, and read back with `playlist.history`. The display thread hands the file's lines to a thread of
/// its own (``playLinesToWrite()``, then ``playLinesWritten(_:failure:)``).
extension ProductController {
    /// A playlist item's turn on a screen ended: it is kept and every subscriber (the fleet too) is told.
    public mutating func recordPlay(_ record: PlayRecord) -> Outcome {
        playHistory.append(record)
        var outcome = Outcome()
        outcome.events.append(Event(name: Event.Name.playlistPlayed.rawValue, params: Self.json(record).objectValue))
        return outcome
    }

    /// The lines recorded since the last write, and how many; nil when none waits. They count as handed over.
    public mutating func playLinesToWrite() -> (lines: Data, count: Int)? {
        playHistory.takeUnwritten()
    }

    /// A write of `count` lines ended. A failure is logged once per kind, not once per write.
    public mutating func playLinesWritten(_ count: Int, failure: StateStoreError?) {
        let before = playHistory.lastError
        playHistory.written(count, failure: failure)
        if let failure, failure.description != before {
            logger.error("\(failure.description.logSafe); \(count) record(s) lost, later ones still tried")
        } else if failure == nil, before != nil {
            logger.notice("the play history is written again to \(playHistory.path.logSafe)")
        }
    }

    /// `playlist.history`: the newest records, oldest first.
    mutating func playlistHistory(screen: String?, limit: Int) -> Outcome {
        let records = playHistory.newest(limit, screen: screen)
        return Outcome(
            reply: .result(method: .playlistHistory, result: ["records": .array(records.map(Self.json))]))
    }

    static func json(_ record: PlayRecord) -> JSONValue {
        let time: (Double?) -> JSONValue = { $0.map { .number($0) } ?? .null }
        return .object([
            "screen": .string(record.screen), "source": .string(record.source), "index": .integer(record.index),
            "start": .number(record.start), "end": .number(record.end), "shownAt": time(record.shownAt),
            "lastShownAt": time(record.lastShownAt), "frames": .integer(record.frames),
        ])
    }
}
