import Foundation
import Messaging
import Outputs
import Screens

/// `playlist.show` and the steps an operator takes on the playlist a screen plays: `playlist.next`, `previous`,
/// `pause`, `resume` (``PlaylistStep``). A step moves where the playlist's cycle begins, or holds it; the wall clock
/// still decides every switch after it, and it lasts while the screen plays that playlist.
extension ProductController {
    /// `playlist.show`: the playlist the screen plays, where it came from, where it is and whether it is held.
    func showPlaylist(screen: String) throws(MessageError) -> Outcome {
        let output = try connected(screen)
        guard let playlist = model.playlist(of: output), let (_, index) = model.playlistItem(of: output.registryName),
            let position = model.playlistPosition(of: output, at: Date().timeIntervalSince1970)
        else { throw MessageError(.refused, "\(screen) plays no playlist now") }
        var result: [String: JSONValue] = [
            "screen": .string(screen), "from": .string(origin(of: output)),
            "items": .array(
                playlist.items.map { item in
                    var fields: [String: JSONValue] = ["source": .string(item.source)]
                    if let seconds = item.seconds { fields["seconds"] = .number(seconds) }
                    // A video that plays its own length: how long that is, once measured.
                    if item.playsItsLength { fields["length"] = item.length.map { .number($0) } ?? .null }
                    if let transition = item.transition { fields["transition"] = .string(transition.rawValue) }
                    return .object(fields)
                }),
            "fit": .string(playlist.fit.rawValue), "epoch": .number(playlist.epoch), "index": .integer(index),
            "started": .number(position.started), "until": position.next.isFinite ? .number(position.next) : .null,
            "paused": .bool(playlist.pausedAt != nil), "steered": .bool(model.steering[screen] != nil),
        ]
        if let name = playlistName(of: output) { result["playlist"] = .string(name) }
        return Outcome(reply: .result(method: .showPlaylist, result: result))
    }

    /// `playlist.next|previous|pause|resume`: the step, taken at `at` (when the request arrived, without one); the
    /// screen shows the item it leaves the playlist on at once.
    mutating func stepPlaylist(screen: String, step: PlaylistStep, at: Double?) throws(MessageError) -> Outcome {
        let output = try connected(screen)
        if model.interrupt(of: output) != nil {
            throw MessageError(
                .refused, "an interrupt plays on \(screen): its items are not stepped (clear it, or wait for its end)")
        }
        let time = at ?? Date().timeIntervalSince1970
        let stepped = try invalidParams { () throws(UnknownScreenError) in
            try model.take(step, onScreen: screen, at: time)
        }
        guard let stepped else { throw MessageError(.refused, "\(screen) plays no playlist now") }
        let position = stepped.position(at: time)
        let paused = stepped.pausedAt != nil
        logger.info(
            "playlist on \(screen): \(step.rawValue), item \(position.index + 1)\(paused ? " held" : "") now")
        var outcome = Outcome(
            reply: .result(
                method: MessageMethod(step),
                result: [
                    "screen": .string(screen), "index": .integer(position.index), "paused": .bool(paused),
                    "until": position.next.isFinite ? .number(position.next) : .null,
                ]))
        outcome.events = [
            .playlistItem(
                screen: screen, index: position.index, source: stepped.items[position.index].source,
                until: position.next)
        ]
        outcome.changes.screens = [screen]
        return saving(outcome)
    }

    /// Where the playlist the output plays comes from: `interrupt`, `set` (`playlist.set`), `schedule` or `rule`.
    private func origin(of output: OutputInfo) -> String {
        if model.interrupt(of: output) != nil { return "interrupt" }
        if model.playlists[output.displayName] != nil { return "set" }
        if case .playlist = model.scheduled[output.displayName] { return "schedule" }
        return "rule"
    }

    /// The config's name for the playlist the output plays, when it is one of its `[[playlist]]`s.
    private func playlistName(of output: OutputInfo) -> String? {
        if model.interrupt(of: output) != nil || model.playlists[output.displayName] != nil { return nil }
        if case .playlist(let name) = model.scheduled[output.displayName] { return name }
        return model.roles.config.rule(for: output)?.playlist
    }
}
