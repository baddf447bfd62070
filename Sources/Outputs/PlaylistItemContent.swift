extension Playlist.Item {
    /// What an item shows, told by its source: an image or a video by URL (an asset, fetched into the cache), a page
    /// (any other `file://`, `http://`, `https://`), a text slide (`text:WORDS`, drawn as a message is), a card
    /// (`card:WORDS`, drawn as `card.open` draws one), black (`blank`), or else a file (an image or a video, by
    /// absolute path).
    public enum Content: Equatable, Sendable {
        case file(String)
        case asset(String)
        case page(String)
        case text(String)
        case card(String)
        case blank
    }

    public var content: Content {
        if isAsset { return .asset(source) }
        if isPage { return .page(source) }
        if source.hasPrefix("text:") { return .text(String(source.dropFirst(5))) }
        if source.hasPrefix("card:") { return .card(String(source.dropFirst(5))) }
        if source == "blank" { return .blank }
        return .file(source)
    }

    /// Whether the item names a file on the kiosk (what only callers given media directories may send).
    public var namesFile: Bool {
        if case .file = content { return true }
        return false
    }

    /// What its file or asset is by its name's extension (a file without a known one: nil); nil for a page, a slide
    /// or blank. A file's first bytes decide how it is decoded: this only tells what the model may expect of it.
    public var mediaKind: MediaKind? {
        switch content {
        case .file(let path): MediaKind(recognisingExtensionOf: path)
        case .asset: assetKind
        case .page, .text, .card, .blank: nil
        }
    }
}
