/// What `status` reports of the assets: how many of those the playlists name are cached, being fetched or failed (and
/// why, per URL as a log may show it), and the cache's bytes against its cap.
public struct AssetSummary: Equatable, Sendable {
    /// Named by a current playlist and cached.
    public var cached = 0
    /// Downloads under way, and waiting for a free slot.
    public var downloading = 0
    public var queued = 0
    /// Named by a current playlist and not cached: why the last try failed, by URL (``String/logSafeURL``).
    public var failed: [String: String] = [:]
    /// Bytes the cached files hold (all of them, named by a playlist or not); the cap is the config's.
    public var bytesUsed: Int64 = 0
    /// Why the cache directory cannot be used (then nothing is fetched), nil when it can.
    public var error: String?

    public init() {}
}
