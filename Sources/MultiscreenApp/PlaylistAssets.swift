import Assets
import Logging
import Messaging
import Wayland

/// The playlist assets by URL on this kiosk, as the display thread sees them: the one owner of the ``AssetFetcher``
/// (its event loop thread, its cache, its news eventfd, watched on the display loop from when it is made to
/// ``tearDown()``). It is made by ``sync(_:)`` when a playlist first names an asset, so a kiosk that plays none has no
/// fetcher thread and no cache directory. ``sync(_:)`` tells the fetcher which assets the current playlists name
/// whenever that changes; its news (ready at a path, failed) arrives through the eventfd and becomes ``available`` —
/// only for URLs still wanted, so a file the cache may evict is never handed on — and ``onChange`` tells the product.
///
/// Without a usable cache directory (unwritable, a file in the way; found by the fetcher on its own thread) every asset
/// stays missing, its items are skipped and `status` says why, while every other item plays.
final class PlaylistAssets {
    private let config: AssetConfig
    private var fetcher: AssetFetcher?
    private var failure: String?
    private unowned let loop: EventLoop
    private let logger: Logger
    private var wanted: [String: String?] = [:]
    /// URL → cached file, for the URLs the current playlists name.
    private(set) var available: [String: String] = [:]
    /// The available assets changed.
    var onChange: ([String: String]) -> Void = { _ in }
    /// What the subscribers are told: an asset arrived (`asset.ready`), a download failed (`asset.failed`).
    var onEvent: (Event) -> Void = { _ in }

    init(config: AssetConfig, loop: EventLoop, logger: Logger) {
        self.config = config
        self.loop = loop
        self.logger = logger
    }

    /// The assets the current playlists name (``ScreenModel/wantedAssets``), after each outcome
    /// (``Application/act(on:)``): the fetcher is told only when the set changed.
    func sync(_ assets: [String: String?]) {
        guard assets != wanted else { return }
        wanted = assets
        if fetcher == nil && failure == nil && !assets.isEmpty { startFetcher() }
        let kept = available.filter { assets[$0.key] != nil }
        fetcher?.want(assets)
        if kept != available {
            available = kept
            onChange(available)
        }
    }

    /// What `status` says of the assets.
    var status: [String: JSONValue] {
        // Before any playlist named an asset there is no fetcher: nothing cached that this run knows of.
        let summary = fetcher?.summary ?? AssetSummary()
        return [
            "error": .optional(summary.error ?? failure),
            "wanted": .integer(wanted.count), "cached": .integer(summary.cached),
            "downloading": .integer(summary.downloading), "queued": .integer(summary.queued),
            "failed": .object(summary.failed.mapValues { .string($0) }),
            "bytesUsed": .integer(Int(summary.bytesUsed)), "bytesCap": .integer(Int(config.cacheBytes)),
        ]
    }

    /// Stops the fetcher (its downloads cancelled, its thread joined) and takes its eventfd off the loop.
    func tearDown() {
        guard let fetcher else { return }
        loop.unwatch(fetcher.newsFileDescriptor)
        fetcher.stop()
    }

    private func startFetcher() {
        do {
            let fetcher = try AssetFetcher(config: config, logger: logger)
            self.fetcher = fetcher
            loop.watch(fetcher.newsFileDescriptor) { [unowned self] in takeNews() }
        } catch {
            failure = "the asset fetcher cannot start: \(error)".logSafe
            logger.error("\(failure!); playlist items by URL are skipped")
        }
    }

    private func takeNews() {
        guard let fetcher else { return }
        var changed = false
        for news in fetcher.takeNews() {
            switch news {
            case .ready(let url, let path, let bytes):
                guard wanted[url] != nil, available[url] != path else { continue }
                available[url] = path
                changed = true
                onEvent(.assetReady(url: url, bytes: Int(bytes)))
            case .failed(let url, let reason):
                // Logged by the fetcher; a failure means no copy is cached.
                if available.removeValue(forKey: url) != nil { changed = true }
                onEvent(.assetFailed(url: url, reason: reason))
            case .removed(let url):
                if available.removeValue(forKey: url) != nil { changed = true }
            }
        }
        if changed { onChange(available) }
    }
}
