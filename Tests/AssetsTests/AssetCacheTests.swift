import Foundation
import Testing

@testable import Assets

/// The cache on its own: its cap held by evicting the least recently used, never what a playlist names, its index
/// read back at open, and nothing but whole files under final names.
@Suite struct AssetCacheTests {
    /// A fresh directory under the system's temporary one, removed when `body` returns.
    static func withDirectory(_ body: (String) throws -> Void) throws {
        let directory = NSTemporaryDirectory() + "assets-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    /// Writes `size` bytes where a download would (the cache's temporary name for `url`).
    static func download(_ cache: AssetCache, _ url: String, size: Int) -> String {
        let path = cache.temporaryPath(for: url)
        FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: size))
        return path
    }

    static func files(in directory: String) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
    }

    @Test func filesAreNamedByTheirURLsHashAndExtension() {
        let name = AssetCache.fileName(for: "https://example.org/a/Picture.JPG?size=large#top")
        #expect(name.hasSuffix(".jpg"))
        #expect(name.count == 64 + 4)
        #expect(AssetCache.fileName(for: "https://example.org/a/Picture.JPG") != name)
        #expect(AssetCache.fileName(for: "https://example.org/a/blob").count == 64)
    }

    @Test func theCapIsHeldByEvictingTheLeastRecentlyUsed() throws {
        try Self.withDirectory { directory in
            let cache = try AssetCache(directory: directory, capacity: 3000)
            for (index, url) in ["http://h/a.png", "http://h/b.png", "http://h/c.png"].enumerated() {
                try cache.admit(
                    url: url, temporaryPath: Self.download(cache, url, size: 1000), sha256: "x", inUse: [],
                    now: Double(index))
            }
            #expect(cache.bytesUsed == 3000)
            // b was named by a playlist since: a, the least recently used, goes for d.
            cache.markUsed(["http://h/b.png"], now: 10)
            try cache.admit(
                url: "http://h/d.png", temporaryPath: Self.download(cache, "http://h/d.png", size: 1000), sha256: "x",
                inUse: [], now: 11)
            #expect(cache.bytesUsed == 3000)
            #expect(Set(cache.entries.keys) == ["http://h/b.png", "http://h/c.png", "http://h/d.png"])
            #expect(
                !FileManager.default.fileExists(atPath: directory + "/" + AssetCache.fileName(for: "http://h/a.png")))
        }
    }

    @Test func anAssetAPlaylistNamesIsNeverEvicted() throws {
        try Self.withDirectory { directory in
            let cache = try AssetCache(directory: directory, capacity: 2000)
            for url in ["http://h/a.png", "http://h/b.png"] {
                try cache.admit(
                    url: url, temporaryPath: Self.download(cache, url, size: 1000), sha256: "x", inUse: [], now: 1)
            }
            let temporary = Self.download(cache, "http://h/c.png", size: 1000)
            #expect(throws: AssetError.cacheFull(needed: 1000, capacity: 2000)) {
                try cache.admit(
                    url: "http://h/c.png", temporaryPath: temporary, sha256: "x",
                    inUse: ["http://h/a.png", "http://h/b.png"], now: 2)
            }
            #expect(Set(cache.entries.keys) == ["http://h/a.png", "http://h/b.png"])
            #expect(!FileManager.default.fileExists(atPath: temporary))
            // With one of them free, the other stays and the free one goes.
            try cache.admit(
                url: "http://h/c.png", temporaryPath: Self.download(cache, "http://h/c.png", size: 1000),
                sha256: "x", inUse: ["http://h/a.png", "http://h/c.png"], now: 3)
            #expect(Set(cache.entries.keys) == ["http://h/a.png", "http://h/c.png"])
        }
    }

    @Test func theIndexSurvivesReopening() throws {
        try Self.withDirectory { directory in
            let url = "https://example.org/clip.mp4"
            let path: String
            do {
                let cache = try AssetCache(directory: directory, capacity: 10_000)
                path = try cache.admit(
                    url: url, temporaryPath: Self.download(cache, url, size: 1234), sha256: "abc", inUse: [], now: 5)
            }
            let reopened = try AssetCache(directory: directory, capacity: 10_000)
            #expect(reopened.path(for: url) == path)
            #expect(reopened.entries[url]?.size == 1234)
            #expect(reopened.entries[url]?.sha256 == "abc")
            #expect(FileManager.default.contents(atPath: path)?.count == 1234)
        }
    }

    /// What a crash leaves — a half-written download, a file the index does not name, an entry whose file was
    /// deleted — is cleaned up at open, so that only whole, known files are ever given out.
    @Test func partialAndUnknownFilesAreRemovedAtOpen() throws {
        try Self.withDirectory { directory in
            let kept = "http://h/kept.png"
            let lost = "http://h/lost.png"
            do {
                let cache = try AssetCache(directory: directory, capacity: 10_000)
                for url in [kept, lost] {
                    try cache.admit(
                        url: url, temporaryPath: Self.download(cache, url, size: 100), sha256: "x", inUse: [], now: 1)
                }
                _ = Self.download(cache, "http://h/half.png", size: 50)
            }
            unlink(directory + "/" + AssetCache.fileName(for: lost))
            FileManager.default.createFile(atPath: directory + "/stray.png", contents: Data([1, 2, 3]))
            #expect(Self.files(in: directory).contains { $0.hasSuffix(AssetCache.partialSuffix) })
            let reopened = try AssetCache(directory: directory, capacity: 10_000)
            #expect(Set(reopened.entries.keys) == [kept])
            #expect(Self.files(in: directory) == [AssetCache.fileName(for: kept), AssetCache.indexName])
        }
    }

    /// A cap lowered since the last run is held from the first moment.
    @Test func aLowerCapIsHeldAtOpen() throws {
        try Self.withDirectory { directory in
            do {
                let cache = try AssetCache(directory: directory, capacity: 10_000)
                for (index, url) in ["http://h/a.png", "http://h/b.png", "http://h/c.png"].enumerated() {
                    try cache.admit(
                        url: url, temporaryPath: Self.download(cache, url, size: 1000), sha256: "x", inUse: [],
                        now: Double(index))
                }
            }
            let reopened = try AssetCache(directory: directory, capacity: 2000)
            #expect(reopened.bytesUsed <= 2000)
            #expect(Set(reopened.entries.keys) == ["http://h/b.png", "http://h/c.png"])
        }
    }
}
