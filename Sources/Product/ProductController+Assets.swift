import Foundation
import Messaging
import Screens

extension ProductController {
    /// The playlist assets by URL that are cached now changed (URL → local file): a screen whose shown item changes
    /// with it redraws at once — the asset its clock names arrived, or one it showed went — and nothing else does.
    public mutating func assetsChanged(_ available: [String: String]) -> Outcome {
        var outcome = Outcome()
        guard available != model.availableAssets else { return outcome }
        let before = kinds
        model.availableAssets = available
        for output in outputs where kind(of: output.registryName) != before[output.displayName] {
            outcome.changes.screens.insert(output.displayName)
        }
        return outcome
    }

    /// A video that plays its own length (an item without seconds) was measured: `length`, or `failure` when it could
    /// not be (the item is then out of the cycle, and every screen whose playlist names it is told with `media.error`).
    /// The playlists naming it are timed again: every screen goes to the item the clock now says, those whose item
    /// changed redraw, and the next switch is armed again by the caller.
    public mutating func measured(length: Double?, ofVideo source: String, failure: String? = nil) -> Outcome {
        let kinds = self.kinds
        var outcome = Outcome()
        if let failure {
            for output in outputs
            where model.playlist(of: output)?.items.contains(where: { $0.source == source }) == true {
                outcome.events.append(.mediaError(screen: output.displayName, path: source, error: failure))
            }
        }
        guard model.measured(length: length, ofVideo: source) else { return outcome }
        // A playlist whose only items waited for their length had nothing to show: its index did not move, its content
        // did, which the kinds before tell.
        var advanced = advancePlaylists(now: Date(), schedulesBefore: scheduleChoices, kindsBefore: kinds)
        advanced.events = outcome.events + advanced.events
        advanced.changes.state = true
        return saving(advanced)
    }

    /// Logs that item `index` of `screen`'s playlist, whose turn it is, is skipped because its asset is not cached
    /// (the log handler bounds the rate, like every call site's).
    func logSkippedItem(_ index: Int, on screen: String) {
        guard let output = outputs.first(where: { $0.displayName == screen }),
            let (playlist, playing) = model.playlistItem(of: output.registryName), playing == index,
            model.shownItem(of: playlist, at: index) != index
        else { return }
        let shown = model.shownItem(of: playlist, at: index).map { "item \($0 + 1) stays" } ?? "nothing of it to show"
        logger.warning(
            "playlist item \(index + 1) on \(screen.logSafe) skipped: \(playlist.items[index].source.logSafeURL) is not cached yet; \(shown)"
        )
    }
}
