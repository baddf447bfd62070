import Foundation
import Messaging
import Outputs
import Screens
import SystemCalls

/// Images, videos and playlists on screens. A `media.show` is answered only once its file was read, off the display
/// thread: ``showMedia(screen:path:fit:rotation:loop:)`` hands the read back as ``Outcome/mediaToRead`` and
/// ``settle(_:with:now:)`` answers it.
extension ProductController {
    // MARK: - Images and videos

    /// `media.show`: checked here, answered by ``settle(_:with:now:)`` once the file was read.
    func showMedia(screen: String, path: String, fit: MediaFit, rotation: MediaRotation, loop: Bool)
        throws(MessageError) -> Outcome
    {
        try refuseController(screen, for: "images or videos")
        _ = try invalidParams { () throws(UnknownScreenError) in try model.roles.output(named: screen) }
        var outcome = Outcome()
        outcome.mediaToRead = MediaRequest(
            screen: screen, item: MediaItem(path: path, fit: fit, rotation: rotation, loop: loop))
        return outcome
    }

    /// Answers a `media.show` once its file was read (``Outcome/mediaToRead``): shows it when it can be shown, else
    /// refuses with the reason and leaves the screen as it was.
    public mutating func settle(
        _ request: MediaRequest, with reading: MediaReading, now: UInt64 = MonotonicClock.nanoseconds()
    )
        -> Outcome
    {
        let screen = request.screen
        var outcome: Outcome
        switch reading {
        case .failed(let reason):
            logger.warning("media on \(screen) refused: \(reason.logSafe)")
            outcome = Outcome(reply: .error(MessageError(.mediaFailed, reason)))
            outcome.events = [.mediaError(screen: screen, path: request.item.path, error: reason)]
        case .readable(let kind, let width, let height, let decoder):
            do throws(MessageError) {
                // The screen may have gone, or become the controller's, while the file was read.
                try refuseController(screen, for: "images or videos")
                try invalidParams { () throws(UnknownScreenError) in
                    try model.showMedia(ShownMedia(item: request.item, kind: kind), onScreen: screen)
                }
                logger.info("\(kind.rawValue) \(width)x\(height) on \(screen): \(request.item.path.logSafe)")
                outcome = Outcome(
                    reply: .result(
                        method: .showMedia,
                        result: [
                            "screen": .string(screen), "path": .string(request.item.path),
                            "kind": .string(kind.rawValue),
                            "width": .integer(width), "height": .integer(height),
                        ]))
                outcome.events = [
                    .mediaStarted(
                        screen: screen, path: request.item.path, kind: kind.rawValue, width: width, height: height,
                        decoder: decoder)
                ]
                absorb(model.assignment, into: &outcome)
                outcome.changes.screens = [screen]
                outcome = saving(outcome)
            } catch {
                outcome = Outcome(reply: .error(error))
            }
        }
        if let id = request.requestID, let reply = outcome.reply {
            retries[request.producer, default: RetryBook()].remember(reply, for: id, now: now)
        }
        return outcome
    }

    /// `media.stop`: the screen shows messages again.
    mutating func stopMedia(screen: String) throws(MessageError) -> Outcome {
        let shown = try invalidParams { () throws(UnknownScreenError) in try model.stopMedia(onScreen: screen) }
        guard shown else { throw MessageError(.refused, "no image or video is shown on \(screen)") }
        logger.info("media stopped on \(screen)")
        var outcome = Outcome(reply: .result(method: .stopMedia, result: ["screen": .string(screen)]))
        absorb(model.assignment, into: &outcome)
        outcome.changes.screens = [screen]
        return saving(outcome)
    }

    // MARK: - Playlists

    /// `playlist.set`: the item the wall clock says shows at once.
    mutating func setPlaylist(screen: String, playlist: Playlist) throws(MessageError) -> Outcome {
        try refuseController(screen, for: "playlists")
        let now = Date().timeIntervalSince1970
        try invalidParams { () throws(UnknownScreenError) in
            try model.setPlaylist(playlist, onScreen: screen, now: now)
        }
        let position = playlist.position(at: now)
        logger.info("playlist of \(playlist.items.count) items on \(screen), item \(position.index + 1) now")
        var outcome = Outcome(
            reply: .result(
                method: .setPlaylist,
                result: [
                    "screen": .string(screen), "items": .integer(playlist.items.count),
                    "index": .integer(position.index), "until": .number(position.next),
                ]))
        outcome.events = [
            .playlistItem(
                screen: screen, index: position.index, source: playlist.items[position.index].source,
                until: position.next)
        ]
        absorb(model.assignment, into: &outcome)
        outcome.changes.screens = [screen]
        return saving(outcome)
    }

    /// `playlist.clear`: the screen shows messages again.
    mutating func clearPlaylist(screen: String) throws(MessageError) -> Outcome {
        let shown = try invalidParams { () throws(UnknownScreenError) in try model.clearPlaylist(onScreen: screen) }
        guard shown else { throw MessageError(.refused, "no playlist is set on \(screen)") }
        logger.info("playlist cleared on \(screen)")
        var outcome = Outcome(reply: .result(method: .clearPlaylist, result: ["screen": .string(screen)]))
        absorb(model.assignment, into: &outcome)
        outcome.changes.screens = [screen]
        return saving(outcome)
    }

    /// When the next playlist item starts on any screen: the caller asks ``advancePlaylists(now:)`` then.
    public var nextPlaylistSwitch: Date? {
        model.nextPlaylistSwitch(after: Date().timeIntervalSince1970).map { Date(timeIntervalSince1970: $0) }
    }

    /// Moves every playlist to the item the wall clock says, and turns screens off and on as their schedules say: the
    /// screens whose item or power changed redraw, all in the same render pass.
    public mutating func advancePlaylists(now: Date = Date()) -> Outcome {
        var outcome = Outcome()
        let time = now.timeIntervalSince1970
        let power = powerByScreen
        let advanced = model.advancePlaylists(now: time)
        reportPower(since: power, into: &outcome)
        for (screen, index) in advanced {
            guard let output = outputs.first(where: { $0.displayName == screen }),
                let (playlist, _) = model.playlistItem(of: output.registryName)
            else { continue }
            outcome.events.append(
                .playlistItem(
                    screen: screen, index: index, source: playlist.items[index].source,
                    until: playlist.position(at: time).next))
            outcome.changes.screens.insert(screen)
        }
        return outcome
    }
}
