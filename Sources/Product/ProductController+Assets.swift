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
}
