import Foundation
import Messaging
import Screens

/// Proof of play: what the display thread saw each screen show is kept (``PlayHistory``), published as
/// `playlist.played`, and read back with `playlist.history`.
extension ProductController {
    /// A playlist item's turn on a screen ended: it is kept and every subscriber (the fleet too) is told.
    public mutating func recordPlay(_ record: PlayRecord) -> Outcome {
        playHistory.append(record)
        var outcome = Outcome()
        outcome.events.append(Event(name: Event.Name.playlistPlayed.rawValue, params: Self.json(record).objectValue))
        return outcome
    }

    /// `playlist.history`: the newest records, oldest first.
    func playlistHistory(screen: String?, limit: Int) -> Outcome {
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
