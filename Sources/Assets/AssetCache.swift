import Crypto
import Foundation
import Glibc
import Messaging

/// Images and videos fetched by URL, kept as files in one directory within a size cap, with an index of what each
/// file is (its URL, size, checksum, when it was last named by a playlist) saved atomically beside them.
///
/// A file is named by the SHA-256 of its URL plus the URL's extension (`<64 hex>.png`): a URL of any length or
/// alphabet is a safe file name, and the extension keeps the file recognisable to a person and to a decoder. It
/// appears under that name only whole: a download goes to a `.partial` file of its own (``temporaryPath(for:)``),
/// which ``admit(url:temporaryPath:sha256:inUse:now:)`` renames into place after it was `fsync`ed. Anything else
/// found at open — `.partial` files left by a crash, files the index does not name, index entries whose file is gone
/// — is removed or dropped, so the index and the directory always agree.
///
/// The cap is held at every admission: the least recently used files are evicted first, never one a current playlist
/// names (`inUse`); an asset that would only fit by evicting those is refused (``AssetError/cacheFull(needed:capacity:)``).
///
/// Not thread-safe: its owner (``AssetFetcher``) uses it on its one event loop only.
public final class AssetCache: @unchecked Sendable {
    /// One cached file.
    public struct Entry: Codable, Equatable, Sendable {
        public var url: String
        /// The file's name in the cache directory.
        public var file: String
        public var size: Int64
        /// The SHA-256 of the file's bytes (lower-case hex).
        public var sha256: String
        /// Seconds since 1970 when a playlist last named it (or it was fetched).
        public var lastUsed: Double
    }

    public let directory: String
    /// The most bytes the cached files may hold together.
    public let capacity: Int64
    /// What is cached, by URL.
    public private(set) var entries: [String: Entry] = [:]

    public var bytesUsed: Int64 { entries.values.reduce(0) { $0 + $1.size } }

    static let indexName = "index.json"
    /// What a file being written ends in: never a name an entry has.
    static let partialSuffix = ".partial"

    /// Opens (creating it if needed) the cache in `directory`: reads the index, removes partial and unknown files,
    /// drops entries whose file is missing or of another size, and evicts down to `capacity` (a cap lowered since).
    public init(directory: String, capacity: Int64, now: Double = Date().timeIntervalSince1970) throws(AssetError) {
        self.directory = directory
        self.capacity = capacity
        try AssetFiles.makeDirectory(directory)
        var changed = false
        if let data = FileManager.default.contents(atPath: indexPath),
            let saved = try? JSONDecoder().decode([Entry].self, from: data)
        {
            for entry in saved where entry.file == Self.fileName(for: entry.url) {
                if AssetFiles.size(of: path(of: entry)) == entry.size {
                    entries[entry.url] = entry
                } else {
                    changed = true
                }
            }
        } else if FileManager.default.fileExists(atPath: indexPath) {
            // An index that does not decode tells nothing of the files: they are fetched again.
            changed = true
        }
        let known = Set(entries.values.map(\.file) + [Self.indexName])
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where !known.contains(name)
        {
            unlink(directory + "/" + name)
        }
        changed = evict(toFit: 0, inUse: []) || changed
        if changed { try saveIndex() }
    }

    /// The cached file of `url`, nil when it is not cached.
    public func path(for url: String) -> String? { entries[url].map(path(of:)) }

    /// A new name to download `url` into, in the cache directory (so that the final rename never crosses file
    /// systems) and ending in ``partialSuffix`` (so that nothing takes it for a whole file).
    public func temporaryPath(for url: String) -> String {
        "\(directory)/\(Self.fileName(for: url)).\(UInt32.random(in: 0...UInt32.max))\(Self.partialSuffix)"
    }

    /// Moves a downloaded file (written and `fsync`ed at `temporaryPath`) into the cache as `url`'s, replacing any
    /// older copy, after evicting the least recently used files that no current playlist names (`inUse`: URLs) until
    /// it fits. The temporary file is gone afterwards, whatever happens.
    /// - Returns: the cached file's path.
    @discardableResult
    public func admit(url: String, temporaryPath: String, sha256: String, inUse: Set<String>, now: Double)
        throws(AssetError) -> String
    {
        guard let size = AssetFiles.size(of: temporaryPath) else {
            throw .file("the download of \(url.logSafeURL) is gone from \(temporaryPath)")
        }
        // The older copy of the same URL goes whatever happens to the new one: it is being replaced.
        var keep = inUse
        keep.remove(url)
        let old = entries.removeValue(forKey: url)
        if let old { unlink(path(of: old)) }
        guard size <= capacity, fits(size, keeping: keep) else {
            unlink(temporaryPath)
            if old != nil { try? saveIndex() }
            throw .cacheFull(needed: size, capacity: capacity)
        }
        _ = evict(toFit: size, inUse: keep)
        let entry = Entry(url: url, file: Self.fileName(for: url), size: size, sha256: sha256, lastUsed: now)
        do throws(AssetError) {
            try AssetFiles.replace(path(of: entry), with: temporaryPath, directory: directory)
        } catch {
            unlink(temporaryPath)
            throw error
        }
        entries[url] = entry
        try saveIndex()
        return path(of: entry)
    }

    /// Marks the URLs a current playlist names as used now (they are the last to be evicted once no playlist names
    /// them), and saves the index when anything changed.
    public func markUsed(_ urls: Set<String>, now: Double) {
        var changed = false
        for url in urls where entries[url] != nil {
            entries[url]!.lastUsed = now
            changed = true
        }
        if changed { try? saveIndex() }
    }

    /// Removes `url`'s file (a cached copy whose checksum the playlist no longer names).
    public func remove(_ url: String) {
        guard let entry = entries.removeValue(forKey: url) else { return }
        unlink(path(of: entry))
        try? saveIndex()
    }

    /// The file name of `url`'s asset: the SHA-256 of the URL, then the extension of its path if it has a short one.
    public static func fileName(for url: String) -> String {
        let hash = SHA256.hash(data: Data(url.utf8)).map { String(format: "%02x", $0) }.joined()
        let path = url.prefix { $0 != "?" && $0 != "#" }
        let last = path.split(separator: "/").last ?? ""
        guard let dot = last.lastIndex(of: ".") else { return hash }
        let suffix = last[last.index(after: dot)...].lowercased()
        guard (1...8).contains(suffix.count), suffix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            return hash
        }
        return hash + "." + suffix
    }

    // MARK: - Private

    private var indexPath: String { directory + "/" + Self.indexName }

    private func path(of entry: Entry) -> String { directory + "/" + entry.file }

    /// Whether `size` more bytes fit once every file not in `keep` is evicted.
    private func fits(_ size: Int64, keeping keep: Set<String>) -> Bool {
        let kept = entries.values.filter { keep.contains($0.url) }.reduce(0) { $0 + $1.size }
        return kept + size <= capacity
    }

    /// Evicts least recently used files not in `inUse` until `size` more bytes fit (or nothing more may go).
    /// - Returns: whether anything was evicted.
    private func evict(toFit size: Int64, inUse: Set<String>) -> Bool {
        var used = bytesUsed
        var evicted = false
        let candidates = entries.values.filter { !inUse.contains($0.url) }.sorted {
            ($0.lastUsed, $0.url) < ($1.lastUsed, $1.url)
        }
        for entry in candidates where used + size > capacity {
            entries[entry.url] = nil
            unlink(path(of: entry))
            used -= entry.size
            evicted = true
        }
        return evicted
    }

    private func saveIndex() throws(AssetError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let sorted = entries.values.sorted { $0.url < $1.url }
        guard let data = try? encoder.encode(sorted) else { throw .file("cannot encode the asset index") }
        try AssetFiles.writeAtomically(data, to: indexPath, directory: directory)
    }
}
