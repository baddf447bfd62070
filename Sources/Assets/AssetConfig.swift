import ConfigFile
import Foundation
import Messaging
import TOMLKit
import TOMLPrecheck

/// The `[assets]` section of `config.toml`: where playlist assets fetched by URL are kept and how much they may take.
/// Read from the same file as the role rules (which leave the section to this type), once at start.
///
/// ```toml
/// [assets]
/// cache_limit = 2048        # MiB the cached files may hold together (least recently used evicted first)
/// download_limit = 512      # MiB one download may be; bigger ones are refused
/// directory = "/var/cache/multiscreen/assets"   # default: $XDG_CACHE_HOME/multiscreen/assets
/// ```
public struct AssetConfig: Equatable, Sendable {
    /// The cache directory.
    public var directory: String
    /// The most bytes the cached files hold together.
    public var cacheBytes: Int64 = 2048 << 20
    /// The most bytes one download may be.
    public var downloadBytes: Int64 = 512 << 20

    public static let keys = ["cache_limit", "download_limit", "directory"]
    /// `cache_limit`'s range in MiB: under 16 MiB not even a few pictures fit; over 1 TiB is a typo.
    public static let cacheLimitRange = 16...1_048_576

    public init(directory: String = AssetConfig.defaultDirectory()) {
        self.directory = directory
    }

    /// `$XDG_CACHE_HOME/multiscreen/assets`, else `$HOME/.cache/multiscreen/assets`: what is there can be fetched
    /// again, which is what the XDG cache directory is for (backups skip it, a full disk may be cleaned there).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache + "/multiscreen/assets" }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        return home + "/.cache/multiscreen/assets"
    }

    /// The `[assets]` section of the config at `path`; the defaults when the file or the section is absent.
    public static func load(path: String) throws(AssetConfigError) -> AssetConfig {
        let text: String?
        do throws(ConfigFile.Problem) {
            text = try ConfigFile.text(at: path)
        } catch {
            throw AssetConfigError("\(path): \(error)")
        }
        guard let text else { return AssetConfig() }
        do {
            return try parse(text)
        } catch {
            throw AssetConfigError("\(path): \(error.message)")
        }
    }

    /// The `[assets]` section of a config's text; the defaults without one.
    public static func parse(_ text: String, defaultDirectory: String = AssetConfig.defaultDirectory())
        throws(AssetConfigError) -> AssetConfig
    {
        let root: TOMLTable
        do throws(ConfigFile.Problem) {
            root = try ConfigFile.table(text)
        } catch {
            throw AssetConfigError("\(error)")
        }
        var config = AssetConfig(directory: defaultDirectory)
        guard let section = root["assets"] else { return config }
        guard let table = section.table else { throw AssetConfigError("'assets' must be a table ([assets])") }
        if let unknown = table.keys.sorted().first(where: { !keys.contains($0) }) {
            throw AssetConfigError("unknown key 'assets.\(unknown)' (expected one of: \(keys.joined(separator: ", ")))")
        }
        if let value = table["cache_limit"] {
            guard let mib = value.int, cacheLimitRange.contains(mib) else {
                throw AssetConfigError(
                    "'assets.cache_limit' must be a whole number of MiB from \(cacheLimitRange.lowerBound) to "
                        + "\(cacheLimitRange.upperBound), got \(value)")
            }
            config.cacheBytes = Int64(mib) << 20
            config.downloadBytes = min(config.downloadBytes, config.cacheBytes)
        }
        if let value = table["download_limit"] {
            guard let mib = value.int, mib >= 1, Int64(mib) << 20 <= config.cacheBytes else {
                throw AssetConfigError(
                    "'assets.download_limit' must be a whole number of MiB from 1 to the cache_limit "
                        + "(\(config.cacheBytes >> 20)), got \(value)")
            }
            config.downloadBytes = Int64(mib) << 20
        }
        if let value = table["directory"] {
            guard let path = value.string, path.hasPrefix("/") else {
                throw AssetConfigError("'assets.directory' must be an absolute path, got \(value)")
            }
            config.directory = path
        }
        return config
    }
}

/// Why the `[assets]` section cannot be used, in words for the log.
public struct AssetConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// Control characters are escaped: the message goes to the log as it is.
    public init(_ message: String) {
        self.message = message.logSafe
    }

    public var description: String { "[assets]: \(message)" }
}
