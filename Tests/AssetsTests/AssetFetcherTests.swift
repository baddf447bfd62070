import Foundation
import Glibc
import HummingbirdTesting
import Logging
import NIOCore
import Testing

@testable import Assets

/// The fetcher against a real HTTP server on loopback: a wrong checksum refused, the cached copy kept when the server
/// is gone, a half-written download never under its final name, the cache's cap held, a download over its limit
/// refused.
@Suite struct AssetFetcherTests {
    let directory = NSTemporaryDirectory() + "assets-\(UUID().uuidString)"
    let logger = Logger(label: "asset-test")

    func config(cacheBytes: Int64 = 1 << 20, downloadBytes: Int64 = 1 << 20) -> AssetConfig {
        var config = AssetConfig(directory: directory)
        config.cacheBytes = cacheBytes
        config.downloadBytes = downloadBytes
        return config
    }

    /// The fetcher's news until `done` says it has what it waits for, or 10 s passed. It sleeps in the task rather
    /// than in `poll`: the server's handlers run on the same cooperative threads, which a blocked test would starve.
    func news(from fetcher: AssetFetcher, until done: ([AssetNews]) -> Bool) async throws -> [AssetNews] {
        var all: [AssetNews] = []
        let deadline = Date().addingTimeInterval(10)
        while !done(all), deadline.timeIntervalSinceNow > 0 {
            try await Task.sleep(for: .milliseconds(10))
            all += fetcher.takeNews()
        }
        return all
    }

    func settled(_ urls: Set<String>) -> ([AssetNews]) -> Bool {
        { news in
            urls.isSubset(
                of: Set(
                    news.map {
                        switch $0 {
                        case .ready(let url, _, _), .failed(let url, _), .removed(let url): url
                        }
                    }))
        }
    }

    func files() -> Set<String> { Set((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []) }

    @Test func aChecksumMismatchIsRefusedAndReported() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await AssetServer().application().test(.live) { client in
            let url = "http://127.0.0.1:\(client.port!)/picture.png"
            let fetcher = try AssetFetcher(config: config(), logger: logger)
            defer { fetcher.stop() }
            let wrong = AssetServer.sha256([1, 2, 3])
            fetcher.want([url: wrong])
            let refused = try await news(from: fetcher, until: settled([url]))
            guard case .failed(url, let reason)? = refused.last else {
                Issue.record("expected a failure, got \(refused)")
                return
            }
            #expect(reason.contains("sha256 is \(AssetServer.sha256(AssetServer.picture))"))
            #expect(reason.contains(wrong))
            #expect(!files().contains(AssetCache.fileName(for: url)))
            #expect(!files().contains { $0.hasSuffix(AssetCache.partialSuffix) })
            #expect(fetcher.summary.failed[url] == reason)
            #expect(fetcher.summary.cached == 0)
            // The checksum the bytes do have: accepted.
            fetcher.want([url: AssetServer.sha256(AssetServer.picture)])
            let accepted = try await news(from: fetcher, until: settled([url]))
            guard case .ready(url, let path, _)? = accepted.last else {
                Issue.record("expected the asset, got \(accepted)")
                return
            }
            #expect(FileManager.default.contents(atPath: path) == Data(AssetServer.picture))
            #expect(fetcher.summary.failed.isEmpty)
        }
    }

    @Test func theCachedCopyPlaysWhenTheServerIsGone() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = AssetServer()
        let (cachedURL, cachedPath, missingURL) = try await server.application().test(.live) { client in
            let cachedURL = "http://127.0.0.1:\(client.port!)/picture.png"
            let fetcher = try AssetFetcher(config: config(), logger: logger)
            defer { fetcher.stop() }
            fetcher.want([cachedURL: AssetServer.sha256(AssetServer.picture)])
            guard case .ready(_, let path, _)? = try await news(from: fetcher, until: settled([cachedURL])).last else {
                Issue.record("the asset never came")
                return (cachedURL, "", "")
            }
            return (cachedURL, path, "http://127.0.0.1:\(client.port!)/b.png")
        }
        // The server is stopped: a new run (the kiosk restarted offline) has the copy at once and asks nobody.
        let requestsBefore = server.requests.withLock { $0 }
        let fetcher = try AssetFetcher(config: config(), logger: logger, connectTimeout: .seconds(1))
        defer { fetcher.stop() }
        fetcher.want([cachedURL: AssetServer.sha256(AssetServer.picture), missingURL: nil])
        let after = try await news(from: fetcher, until: settled([cachedURL, missingURL]))
        #expect(after.contains(.ready(url: cachedURL, path: cachedPath, bytes: 1000)))
        #expect(after.contains { if case .failed(missingURL, _) = $0 { true } else { false } })
        #expect(FileManager.default.contents(atPath: cachedPath) == Data(AssetServer.picture))
        #expect(server.requests.withLock { $0 } == requestsBefore)
        #expect(fetcher.summary.cached == 1)
        #expect(fetcher.summary.failed.keys.sorted() == [missingURL])
    }

    @Test func aHalfWrittenDownloadIsNeverShown() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await AssetServer().application().test(.live) { client in
            let fetcher = try AssetFetcher(config: config(), logger: logger, readTimeout: .seconds(1))
            defer { fetcher.stop() }
            // The server closes the connection after 100 of its 1000 bytes.
            let closed = "http://127.0.0.1:\(client.port!)/half.png"
            fetcher.want([closed: nil])
            let cut = try await news(from: fetcher, until: settled([closed]))
            #expect(cut.count == 1)
            #expect(cut.allSatisfy { if case .failed = $0 { true } else { false } })
            #expect(!files().contains(AssetCache.fileName(for: closed)))
            // The server stalls after 100 bytes: while it does, the bytes are in a partial file only; then the read
            // timeout ends the download and the partial file goes too.
            let stalled = "http://127.0.0.1:\(client.port!)/stall.png"
            fetcher.want([stalled: nil])
            let deadline = Date().addingTimeInterval(5)
            while !files().contains(where: { $0.hasSuffix(AssetCache.partialSuffix) }),
                deadline.timeIntervalSinceNow > 0
            {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(files().contains { $0.hasSuffix(AssetCache.partialSuffix) })
            #expect(!files().contains(AssetCache.fileName(for: stalled)))
            let timedOut = try await news(from: fetcher, until: settled([stalled]))
            #expect(timedOut.allSatisfy { if case .failed = $0 { true } else { false } })
            #expect(!files().contains(AssetCache.fileName(for: stalled)))
            #expect(!files().contains { $0.hasSuffix(AssetCache.partialSuffix) })
            #expect(fetcher.summary.failed.count == 1)
        }
    }

    @Test func theCacheCapIsHeld() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await AssetServer().application().test(.live) { client in
            let base = "http://127.0.0.1:\(client.port!)/"
            let (a, b, c) = (base + "a.png", base + "b.png", base + "c.png")
            let fetcher = try AssetFetcher(config: config(cacheBytes: 2500), logger: logger)
            defer { fetcher.stop() }
            fetcher.want([a: nil, b: nil])
            let first = try await news(from: fetcher, until: settled([a, b]))
            #expect(first.allSatisfy { if case .ready = $0 { true } else { false } })
            #expect(fetcher.summary.bytesUsed == 2000)
            // a is no longer named: it makes room for c.
            fetcher.want([b: nil, c: nil])
            let next = try await news(from: fetcher, until: settled([c]))
            #expect(next.contains { if case .ready(c, _, _) = $0 { true } else { false } })
            #expect(fetcher.summary.bytesUsed == 2000)
            #expect(!files().contains(AssetCache.fileName(for: a)))
            // All three named: 3000 bytes cannot fit in 2500, and neither b nor c may go.
            fetcher.want([a: nil, b: nil, c: nil])
            let full = try await news(from: fetcher, until: settled([a]))
            #expect(
                full.contains {
                    if case .failed(a, let reason) = $0 { reason.contains("fill the cache") } else { false }
                })
            #expect(fetcher.summary.bytesUsed <= 2500)
            #expect(fetcher.summary.cached == 2)
        }
    }

    @Test func aDownloadOverItsLimitIsRefused() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await AssetServer().application().test(.live) { client in
            let url = "http://127.0.0.1:\(client.port!)/big.png"
            let fetcher = try AssetFetcher(config: config(downloadBytes: 2000), logger: logger)
            defer { fetcher.stop() }
            fetcher.want([url: nil])
            let refused = try await news(from: fetcher, until: settled([url]))
            #expect(refused == [.failed(url: url, reason: AssetError.tooLarge(limit: 2000).description)])
            #expect(files().subtracting([AssetCache.indexName]).isEmpty)
        }
    }

    @Test func redirectsAreBoundedAndAnErrorStatusIsReported() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await AssetServer().application().test(.live) { client in
            let base = "http://127.0.0.1:\(client.port!)/"
            let (near, far, missing) = (base + "hop/7", base + "hop/0", base + "missing.png")
            let fetcher = try AssetFetcher(config: config(), logger: logger)
            defer { fetcher.stop() }
            fetcher.want([near: nil, far: nil, missing: nil])
            let news = try await news(from: fetcher, until: settled([near, far, missing]))
            #expect(news.contains { if case .ready(near, _, 1000) = $0 { true } else { false } }, "\(news)")
            #expect(news.contains { if case .failed(far, _) = $0 { true } else { false } }, "\(news)")
            #expect(news.contains(.failed(url: missing, reason: "the server answered HTTP 404")), "\(news)")
            #expect(Set(fetcher.summary.failed.keys) == [far, missing])
        }
    }

    /// A cache directory that cannot be made: nothing is fetched, and the summary says why for every URL named.
    @Test func anUnusableCacheDirectoryIsReported() async throws {
        let fetcher = try AssetFetcher(config: AssetConfig(directory: "/dev/null/assets"), logger: logger)
        defer { fetcher.stop() }
        fetcher.want(["https://example.invalid/a.png": nil])
        let deadline = Date().addingTimeInterval(5)
        while fetcher.summary.failed.isEmpty, deadline.timeIntervalSinceNow > 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        let summary = fetcher.summary
        #expect(summary.error?.contains("/dev/null/assets") == true, "\(summary)")
        #expect(summary.failed["https://example.invalid/a.png"] == summary.error)
        #expect(summary.downloading == 0 && summary.cached == 0)
    }

    /// A playlist that names other bytes for a cached URL: the old copy is removed at once (never shown as the new
    /// one) and fetched again, refused here because the server still has the old bytes.
    @Test func aChangedChecksumRemovesTheCachedCopy() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await AssetServer().application().test(.live) { client in
            let url = "http://127.0.0.1:\(client.port!)/picture.png"
            let fetcher = try AssetFetcher(config: config(), logger: logger)
            defer { fetcher.stop() }
            fetcher.want([url: nil])
            _ = try await news(from: fetcher, until: settled([url]))
            #expect(files().contains(AssetCache.fileName(for: url)))
            let other = AssetServer.sha256([4, 5, 6])
            fetcher.want([url: other])
            let news = try await news(from: fetcher) { news in
                news.contains { if case .failed = $0 { true } else { false } }
            }
            #expect(news.first == .removed(url: url), "\(news)")
            #expect(!files().contains(AssetCache.fileName(for: url)))
        }
    }
}
