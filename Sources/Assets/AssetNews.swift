/// What the fetcher tells its owner (``AssetFetcher/takeNews()``): an asset is ready at a local path, its latest
/// download failed (it is tried again later, while a playlist names it), or its cached copy was removed because the
/// playlist names other bytes now (it is fetched again).
public enum AssetNews: Equatable, Sendable {
    case ready(url: String, path: String, bytes: Int64)
    case failed(url: String, reason: String)
    case removed(url: String)
}
