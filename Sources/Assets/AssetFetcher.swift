import AsyncHTTPClient
import Foundation
import Logging
import Messaging
import NIOCore
import NIOPosix
import Synchronization
import SystemCalls

/// Fetches the assets the current playlists name into an ``AssetCache``, off the display thread: one event loop
/// thread of its own (`ms-assets`, 19 nice levels down like the other client threads) runs AsyncHTTPClient's
/// requests, streams each body into the cache (``AssetDownload``) and retries failures with a backoff, each retry a
/// task scheduled on that loop for its time. Idle, the thread sleeps in `epoll_wait` with nothing armed: no wakeups.
///
/// The display thread tells it what is wanted (``want(_:)``, whenever the set changes) and takes its news
/// (``takeNews()``) when ``newsFileDescriptor``, an eventfd in its poll, is readable; the lock is held only to append
/// or swap an array. Everything else — the cache, the queue, the retries — is touched on the loop only.
///
/// Limits: only `http`/`https`; ``maximumConcurrentDownloads`` at a time; a connect and a read timeout, and a whole
/// download's deadline (``deadline(forLimit:)``: a server that trickles bytes cannot hold a slot for ever); at most
/// ``maximumRedirects`` redirects; each download at most the configured size (refused by its `Content-Length`, and
/// cut off while streaming). A cached copy is never re-fetched while its URL and checksum stay the same, so a server
/// that is gone costs nothing: the copy keeps playing.
///
/// Created and stopped by one owner; ``stop()`` cancels what is under way (partial files are removed then, or at the
/// next open) and joins the thread.
public final class AssetFetcher: @unchecked Sendable {
    /// Readable when news is waiting (an eventfd; ``takeNews()`` resets it).
    public var newsFileDescriptor: Int32 { news.wakeDescriptor }
    public static let maximumConcurrentDownloads = 2
    public static let maximumRedirects = 5
    public static let connectTimeout = TimeAmount.seconds(10)
    /// The longest silence within a response before it fails.
    public static let readTimeout = TimeAmount.seconds(30)
    /// The slowest a download may be on average: with the per-download size limit, what bounds its whole time.
    public static let slowestBytesPerSecond: Int64 = 128 << 10

    /// How long a download of at most `limit` bytes may take in all: a minute, and the limit at the slowest rate.
    public static func deadline(forLimit limit: Int64) -> TimeAmount {
        .seconds(60 + limit / slowestBytesPerSecond)
    }

    private let group: MultiThreadedEventLoopGroup
    private let loop: any EventLoop
    private let client: HTTPClient
    private let downloadLimit: Int64
    private let logger: Logger
    private let news: Mailbox<AssetNews>
    private let published = Mutex(AssetSummary())
    private let stopped = Mutex(false)

    // On the loop only.
    /// Opened on the loop (a directory listing, the index, what a crash left removed): nil until then, or when the
    /// directory cannot be used (``cacheFailure``).
    private var cache: AssetCache?
    private var cacheFailure: String?
    private var wanted: [String: String?] = [:]
    private var queue: [String] = []
    private var downloading: [String: (download: AssetDownload, task: HTTPClient.Task<AssetDownload.Response>)] = [:]
    private var retries: [String: (schedule: RetrySchedule, task: Scheduled<Void>?)] = [:]
    private var failures: [String: String] = [:]
    private let retryInitial: Double
    private let retryMaximum: Double

    /// Starts the loop, which opens the cache first (its disk work never runs on the caller's thread).
    /// - Parameters:
    ///   - retry: the first and the longest delay before a failed download is tried again, seconds.
    ///   - connectTimeout: how long a connection may take (AsyncHTTPClient tries again within it when one is refused).
    ///   - readTimeout: the longest silence within a response. Both are shorter in tests.
    public init(
        config: AssetConfig, logger: Logger, retry: (initial: Double, maximum: Double) = (5, 600),
        connectTimeout: TimeAmount = AssetFetcher.connectTimeout, readTimeout: TimeAmount = AssetFetcher.readTimeout
    ) throws {
        downloadLimit = config.downloadBytes
        self.logger = logger
        retryInitial = retry.initial
        retryMaximum = retry.maximum
        news = try Mailbox()
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        loop = group.next()
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: Self.maximumRedirects, allowCycles: false),
            timeout: .init(connect: connectTimeout, read: readTimeout))
        configuration.decompression = .disabled
        client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
        loop.execute { [self] in
            ClientThreads.nameCallingThread("ms-assets")
            ClientThreads.lowerCallingThread()
            do throws(AssetError) {
                cache = try AssetCache(directory: config.directory, capacity: config.cacheBytes)
            } catch {
                cacheFailure = "the asset cache \(config.directory) cannot be used: \(error)".logSafe
                logger.error("\(cacheFailure!); playlist items by URL are skipped")
            }
            publish()
        }
    }

    deinit { stop() }

    /// The assets the current playlists name, by URL, each with the checksum an item gives it (display thread).
    /// Cached ones are announced ready at once; missing ones are fetched; retries of URLs no longer named stop.
    public func want(_ assets: [String: String?]) {
        guard !stopped.withLock({ $0 }) else { return }
        loop.execute { [self] in update(assets) }
    }

    /// Everything posted since the last call, oldest first (display thread).
    public func takeNews() -> [AssetNews] { news.take().items }

    /// The counts `status` reports, as of the loop's last change.
    public var summary: AssetSummary { published.withLock { $0 } }

    /// Cancels downloads and retries and ends the thread. Safe twice; not on the loop itself.
    public func stop() {
        guard
            stopped.withLock({ stopping in
                defer { stopping = true }
                return !stopping
            })
        else { return }
        try? loop.submit { [self] in
            for (_, retry) in retries { retry.task?.cancel() }
            retries.removeAll()
            queue.removeAll()
            for (download, task) in downloading.values {
                task.cancel()
                download.discard()
            }
        }.wait()
        try? client.syncShutdown()
        try? group.syncShutdownGracefully()
    }

    // MARK: - On the loop

    private func update(_ assets: [String: String?]) {
        // A URL whose checksum changed is tried again at once: the playlist names other bytes than the ones refused.
        for (url, sha256) in assets where wanted[url] != nil && wanted[url]! != sha256 {
            retries[url]?.task?.cancel()
            retries[url] = nil
        }
        wanted = assets
        guard let cache else {
            failures = assets.mapValues { _ in cacheFailure ?? "no asset cache" }
            return publish()
        }
        cache.markUsed(Set(assets.keys), now: Date().timeIntervalSince1970)
        for (url, retry) in retries where assets[url] == nil {
            retry.task?.cancel()
            retries[url] = nil
        }
        failures = failures.filter { assets[$0.key] != nil }
        queue.removeAll { assets[$0] == nil }
        for (url, sha256) in assets.sorted(by: { $0.key < $1.key }) {
            if let entry = cache.entries[url], let path = cache.path(for: url) {
                if let sha256, entry.sha256 != sha256 {
                    // The playlist names other bytes now: the old copy must not play as the new one.
                    cache.remove(url)
                    post(.removed(url: url))
                } else {
                    post(.ready(url: url, path: path, bytes: entry.size))
                    continue
                }
            }
            if downloading[url] == nil && !queue.contains(url) && retries[url]?.task == nil { queue.append(url) }
        }
        startDownloads()
        publish()
    }

    private func startDownloads() {
        while downloading.count < Self.maximumConcurrentDownloads, !queue.isEmpty {
            start(queue.removeFirst())
        }
        publish()
    }

    private func start(_ url: String) {
        let lower = url.prefix(8).lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            return failed(url, reason: AssetError.unsupportedURL.description, retry: false)
        }
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: url)
        } catch {
            return failed(url, reason: "not a URL the client takes: \(error)", retry: false)
        }
        guard let cache else { return }
        let expected = wanted[url] ?? nil
        let download = AssetDownload(
            url: url, temporaryPath: cache.temporaryPath(for: url), limit: downloadLimit, expectedSHA256: expected)
        let task = client.execute(
            request: request, delegate: download, eventLoop: .delegateAndChannel(on: loop),
            deadline: .now() + Self.deadline(forLimit: downloadLimit))
        downloading[url] = (download, task)
        // Weakly: a download or a retry under way must not keep the fetcher alive past its owner (whose release would
        // then come on this loop, where stopping it cannot be waited for).
        task.futureResult.whenComplete { [weak self] result in
            guard let self else { return }
            downloading[url] = nil
            // Cancelled by stop(): nothing to report, and the partial file is gone already.
            guard !stopped.withLock({ $0 }) else { return download.discard() }
            switch result {
            case .success(let done):
                // The checksum the playlist names changed while this came: the bytes must match the new one.
                if let expected = wanted[url] ?? nil, expected != done.sha256 {
                    unlink(done.temporaryPath)
                    let mismatch = AssetError.checksumMismatch(expected: expected, actual: done.sha256)
                    failed(url, reason: mismatch.description, retry: true)
                    break
                }
                do throws(AssetError) {
                    let path = try cache.admit(
                        url: url, temporaryPath: done.temporaryPath, sha256: done.sha256, inUse: Set(wanted.keys),
                        now: Date().timeIntervalSince1970)
                    retries[url] = nil
                    failures[url] = nil
                    logger.info("asset ready: \(url.logSafeURL) (\(done.size) bytes)")
                    post(.ready(url: url, path: path, bytes: done.size))
                } catch {
                    failed(url, reason: error.description, retry: true)
                }
            case .failure(let error):
                download.discard()
                failed(url, reason: Self.reason(error), retry: true)
            }
            startDownloads()
        }
    }

    private func failed(_ url: String, reason: String, retry: Bool) {
        let reason = reason.logSafe
        logger.warning("asset failed: \(url.logSafeURL): \(reason)")
        post(.failed(url: url, reason: reason))
        guard wanted[url] != nil else { return }
        failures[url] = reason
        guard retry else { return }
        var schedule =
            retries[url]?.schedule
            ?? RetrySchedule(
                initial: retryInitial, maximum: retryMaximum, jitter: 0.5...1, stable: .infinity)
        let delay = schedule.failed()
        let task = loop.scheduleTask(in: .milliseconds(Int64(delay * 1000))) { [weak self] in
            guard let self else { return }
            retries[url]?.task = nil
            guard wanted[url] != nil, cache?.entries[url] == nil else { return }
            if downloading[url] == nil && !queue.contains(url) { queue.append(url) }
            startDownloads()
        }
        retries[url] = (schedule, task)
        publish()
    }

    private func post(_ item: AssetNews) { news.post(item) }

    private func publish() {
        var summary = AssetSummary()
        summary.cached = wanted.keys.filter { cache?.entries[$0] != nil }.count
        summary.downloading = downloading.count
        summary.queued = queue.count
        summary.failed = Dictionary(
            failures.filter { cache?.entries[$0.key] == nil }.map { ($0.key.logSafeURL, $0.value) },
            uniquingKeysWith: { first, _ in first })
        summary.bytesUsed = cache?.bytesUsed ?? 0
        summary.error = cacheFailure
        published.withLock { $0 = summary }
    }

    /// A failure in words: the cache's own as they are, the client's by its description (no response bytes).
    private static func reason(_ error: any Error) -> String {
        if let error = error as? AssetError { return error.description }
        let text = String(describing: error)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}
