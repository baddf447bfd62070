import Messaging
import Screens

extension ProductController {
    /// The playlist assets by URL that are cached now changed (URL → local file): a screen whose shown item changes
    /// with it redraws at once — the asset its clock names arrived, or one it showed went — and nothing else does.
    public mutating func assetsChanged(_ available: [String: String]) -> Outcome {
        var outcome = Outcome()
        guard available != model.availableAssets else { return outcome }
        let before = Dictionary(uniqueKeysWithValues: outputs.map { ($0.displayName, kind(of: $0.registryName)) })
        model.availableAssets = available
        for output in outputs where kind(of: output.registryName) != before[output.displayName] {
            outcome.changes.screens.insert(output.displayName)
        }
        return outcome
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
