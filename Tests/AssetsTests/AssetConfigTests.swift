import Testing

@testable import Assets

/// `[assets]`: the defaults without it, each key checked with a message that names it.
@Suite struct AssetConfigTests {
    @Test func theDefaultsHoldWithoutTheSection() throws {
        let config = try AssetConfig.parse("[web]\nmemory_limit = 512\n", defaultDirectory: "/cache/assets")
        #expect(config == AssetConfig(directory: "/cache/assets"))
        #expect(config.cacheBytes == 2048 << 20)
        #expect(config.downloadBytes == 512 << 20)
    }

    @Test func theSectionSetsTheCapTheDownloadLimitAndTheDirectory() throws {
        let config = try AssetConfig.parse(
            "[assets]\ncache_limit = 100\ndownload_limit = 20\ndirectory = \"/srv/cache\"\n", defaultDirectory: "/x")
        #expect(config.cacheBytes == 100 << 20)
        #expect(config.downloadBytes == 20 << 20)
        #expect(config.directory == "/srv/cache")
        // A cap under the default download limit lowers that limit with it.
        #expect(try AssetConfig.parse("[assets]\ncache_limit = 64\n").downloadBytes == 64 << 20)
    }

    @Test func badValuesAreRefusedByName() {
        for (text, words) in [
            ("[assets]\ncache_limit = 1\n", "'assets.cache_limit'"),
            ("[assets]\ncache_limit = \"2G\"\n", "'assets.cache_limit'"),
            ("[assets]\ncache_limit = 100\ndownload_limit = 200\n", "'assets.download_limit'"),
            ("[assets]\ndirectory = \"relative\"\n", "'assets.directory'"),
            ("[assets]\nsize = 3\n", "unknown key 'assets.size'"),
            ("assets = 3\n", "'assets' must be a table"),
        ] {
            #expect(throws: AssetConfigError.self) { try AssetConfig.parse(text) }
            do {
                _ = try AssetConfig.parse(text)
            } catch {
                #expect(error.message.contains(words), "\(error.message)")
            }
        }
    }
}
