import Foundation
import Screens

/// Follows each screen's playlist item from the render pass that first draws it to the one after it left, and what
/// the compositor showed meanwhile: when a turn ends it becomes a ``PlayRecord`` (proof of play).
///
/// Two kinds of frames count. A picture's or a video's frames are told with the file they showed (``mediaShown``),
/// so a frame of the item before, shown late, is not taken for the new one. A frame of the window itself (a page, a
/// text) counts only if it was committed after the turn began (``windowShown``).
final class PlayTracker {
    /// What a screen plays now, as the product says. A list of one item plays it in one long turn.
    struct Item: Equatable {
        var source: String
        var index: Int
        /// The file its frames come from: `source`, or an asset's cached copy.
        var file: String

        init(source: String, index: Int, file: String? = nil) {
            self.source = source
            self.index = index
            self.file = file ?? source
        }
    }

    private struct Turn {
        var item: Item
        /// When the turn began, as the wall clock and the playlist say.
        var start: Double
        var screen: String
        /// Frames of the window committed before the turn began: the ones after count.
        var committedBefore: UInt64
        var shownAt: Double?
        var lastShownAt: Double?
        var frames = 0

        mutating func shown(at now: Double) {
            shownAt = shownAt ?? now
            lastShownAt = now
            frames += 1
        }
    }

    private var turns: [UInt32: Turn] = [:]

    /// After a render pass: turns whose item changed, or whose screen stopped playing or went away, end; new ones
    /// begin. - Returns: the records of the turns that ended.
    func sync(
        _ screens: [Screen], item: (Screen) -> (item: Item, start: Double)?, now: Double = Date().timeIntervalSince1970
    ) -> [PlayRecord] {
        var ended: [PlayRecord] = []
        let present = Dictionary(uniqueKeysWithValues: screens.map { ($0.output.registryName, $0) })
        for (name, turn) in turns {
            if let screen = present[name], item(screen)?.item == turn.item { continue }
            turns[name] = nil
            ended.append(record(of: turn, now: now))
        }
        for screen in screens where turns[screen.output.registryName] == nil {
            guard let playing = item(screen) else { continue }
            // The pass that just ran drew the new item if the window shows it: its newest frame is the turn's first.
            let committed = screen.timeline.framesCommitted
            turns[screen.output.registryName] = Turn(
                item: playing.item, start: playing.start, screen: screen.output.displayName,
                committedBefore: committed > 0 ? committed - 1 : 0)
        }
        return ended.sorted { $0.screen < $1.screen }
    }

    /// The compositor showed `frame` of the window of the screen on output `name`.
    func windowShown(_ name: UInt32, frame: UInt64, now: Double = Date().timeIntervalSince1970) {
        guard turns[name].map({ frame > $0.committedBefore }) == true else { return }
        turns[name]?.shown(at: now)
    }

    /// The compositor showed a frame of the file at `path` on the screen of output `name`.
    func mediaShown(_ name: UInt32, path: String, now: Double = Date().timeIntervalSince1970) {
        guard turns[name]?.item.file == path else { return }
        turns[name]?.shown(at: now)
    }

    /// At exit: every turn ends now.
    func endAll(now: Double = Date().timeIntervalSince1970) -> [PlayRecord] {
        defer { turns.removeAll() }
        return turns.values.map { record(of: $0, now: now) }.sorted { $0.screen < $1.screen }
    }

    private func record(of turn: Turn, now: Double) -> PlayRecord {
        PlayRecord(
            screen: turn.screen, source: turn.item.source, index: turn.item.index, start: turn.start, end: now,
            shownAt: turn.shownAt, lastShownAt: turn.lastShownAt, frames: turn.frames)
    }
}
