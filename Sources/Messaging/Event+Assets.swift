extension Event {
    /// A playlist asset by URL is in the cache (`bytes` long): the screens whose item it is show it now.
    public static func assetReady(url: String, bytes: Int) -> Event {
        Event(name: Name.assetReady.rawValue, params: ["url": .string(url.logSafeURL), "bytes": .integer(bytes)])
    }

    /// A playlist asset's download failed (`reason`); it is tried again later while a playlist names it, and its items
    /// are skipped until it is cached.
    public static func assetFailed(url: String, reason: String) -> Event {
        Event(name: Name.assetFailed.rawValue, params: ["url": .string(url.logSafeURL), "reason": .string(reason)])
    }
}
