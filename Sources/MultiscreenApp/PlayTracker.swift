import Foundation
import Screens

/// Follows each screen's playlist item from the render pass that first draws it to the one after it left, and what
/// the compositor showed meanwhile: when a turn ends it becomes a ``PlayRecord`` (proof of play). A frame counts for a
/// turn only if it was committed after the turn began, so the last frame of the item before, shown late, is not
/// taken for the new one.
final class PlayTracker {
    /// What a screen plays now, as the product says. A list of one item plays it in one long turn.
    struct Item: Equatable {
        var source: String
        var index: Int
    }

    private struct Turn {
        var item: Item
        /// When the turn began, as the wall clock and the playlist say.
        var start: Double
        var screen: String
        /// Frames of the window committed before the turn began: the ones after count.
        var committedBefore: UInt64
        /// A video's frames shown when the turn began, and at the last pass that still showed it (by the pass after
        /// the switch, the screen may show the next item's video).
        var videoFramesBefore: Int?
        var videoFramesLast: Int?
        var shownAt: Double?
        var lastShownAt: Double?
        var frames = 0
    }

    private var turns: [UInt32: Turn] = [:]

    /// After a render pass: turns whose item changed, or whose screen stopped playing or went away, end; new ones
    /// begin. - Returns: the records of the turns that ended.
    func sync(
        _ screens: [Screen], item: (Screen) -> (item: Item, start: Double)?, videoFrames: (Screen) -> Int?,
        now: Double = Date().timeIntervalSince1970
    ) -> [PlayRecord] {
        var ended: [PlayRecord] = []
        let present = Dictionary(uniqueKeysWithValues: screens.map { ($0.output.registryName, $0) })
        for (name, turn) in turns {
            if let screen = present[name], item(screen)?.item == turn.item {
                // A video still being read when the turn began is counted from when it is first seen.
                let shown = videoFrames(screen)
                if turn.videoFramesBefore == nil { turns[name]?.videoFramesBefore = shown }
                turns[name]?.videoFramesLast = shown
                continue
            }
            turns[name] = nil
            ended.append(record(of: turn, now: now))
        }
        for screen in screens where turns[screen.output.registryName] == nil {
            guard let playing = item(screen) else { continue }
            // The pass that just ran drew the new item: its newest frame is the turn's first.
            turns[screen.output.registryName] = Turn(
                item: playing.item, start: playing.start, screen: screen.output.displayName,
                committedBefore: screen.timeline.framesCommitted - (screen.timeline.framesCommitted > 0 ? 1 : 0),
                videoFramesBefore: videoFrames(screen), videoFramesLast: videoFrames(screen))
        }
        return ended.sorted { $0.screen < $1.screen }
    }

    /// The compositor showed `frame` of `screen`.
    func shown(_ screen: Screen, frame: UInt64, now: Double = Date().timeIntervalSince1970) {
        guard var turn = turns[screen.output.registryName], frame > turn.committedBefore else { return }
        turn.shownAt = turn.shownAt ?? now
        turn.lastShownAt = now
        turn.frames += 1
        turns[screen.output.registryName] = turn
    }

    /// At exit: every turn ends now.
    func endAll(now: Double = Date().timeIntervalSince1970) -> [PlayRecord] {
        defer { turns.removeAll() }
        return turns.values.map { record(of: $0, now: now) }.sorted { $0.screen < $1.screen }
    }

    private func record(of turn: Turn, now: Double) -> PlayRecord {
        let video = max(0, (turn.videoFramesLast ?? 0) - (turn.videoFramesBefore ?? turn.videoFramesLast ?? 0))
        return PlayRecord(
            screen: turn.screen, source: turn.item.source, index: turn.item.index, start: turn.start, end: now,
            shownAt: turn.shownAt, lastShownAt: turn.lastShownAt, frames: turn.frames + video)
    }
}
