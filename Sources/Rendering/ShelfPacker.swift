/// Where small texts go in the text atlas (``Canvas``): a fixed number of pages of a fixed size, each filled in shelves
/// (rows of one height class, filled left to right). A page that is full is never tidied piece by piece: when no page
/// has room, the least recently used page is emptied whole and its keys returned, so their texts are rasterised again
/// when next drawn. Pure, so the policy is tested without a GL context.
struct ShelfPacker<Key: Hashable> {
    struct Placement: Equatable {
        var page: Int
        var x: Int
        var y: Int
    }

    private struct Shelf {
        var y: Int
        var height: Int
        var usedWidth: Int
    }

    private struct Page {
        var shelves: [Shelf] = []
        var nextShelfY = 0
        var keys: Set<Key> = []
        var lastUsed: UInt64 = 0
    }

    let pageWidth: Int
    let pageHeight: Int
    let maxPages: Int
    private var pages: [Page] = []
    private var pageOfKey: [Key: Int] = [:]
    private var clock: UInt64 = 0
    /// Keys dropped with their page so far.
    private(set) var evicted = 0

    /// Shelf heights are rounded up to this, so that texts of nearly the same height share shelves.
    static var heightStep: Int { 8 }
    /// Pixels left free between neighbours, so that nothing sampled at a text's edge can come from the next one.
    static var gap: Int { 1 }

    init(pageWidth: Int, pageHeight: Int, maxPages: Int) {
        precondition(pageWidth > 0 && pageHeight > 0 && maxPages > 0)
        self.pageWidth = pageWidth
        self.pageHeight = pageHeight
        self.maxPages = maxPages
    }

    /// Pages in use (each made once and kept: its storage is never freed before ``removeAll()``).
    var pageCount: Int { pages.count }
    var count: Int { pageOfKey.count }

    func contains(_ key: Key) -> Bool { pageOfKey[key] != nil }

    /// Whether a text of this size can go in a page at all.
    func fits(width: Int, height: Int) -> Bool {
        width > 0 && height > 0 && width <= pageWidth && height <= pageHeight
    }

    /// Marks `key`'s page as just used.
    mutating func touch(_ key: Key) {
        guard let page = pageOfKey[key] else { return }
        clock += 1
        pages[page].lastUsed = clock
    }

    /// A place for `key`, a text of `width` × `height` that must ``fits(width:height:)``, and the keys whose page was
    /// emptied to make room (their places are free from now on).
    mutating func place(_ key: Key, width: Int, height: Int) -> (Placement, evicted: [Key]) {
        precondition(fits(width: width, height: height) && !contains(key))
        clock += 1
        let shelfHeight = min((height + Self.heightStep - 1) / Self.heightStep * Self.heightStep, pageHeight)
        // Most recently used pages first: their shelves are the ones being filled.
        let order = pages.indices.sorted { pages[$0].lastUsed > pages[$1].lastUsed }
        for page in order {
            if let placement = placeInPage(page, key: key, width: width, shelfHeight: shelfHeight) {
                return (placement, [])
            }
        }
        if pages.count < maxPages {
            pages.append(Page())
            return (placeInPage(pages.count - 1, key: key, width: width, shelfHeight: shelfHeight)!, [])
        }
        let victim = pages.indices.min { pages[$0].lastUsed < pages[$1].lastUsed }!
        let victims = Array(pages[victim].keys)
        for key in victims { pageOfKey[key] = nil }
        evicted += victims.count
        pages[victim] = Page()
        return (placeInPage(victim, key: key, width: width, shelfHeight: shelfHeight)!, victims)
    }

    /// Forgets `key` (its text could not be copied in); its place stays used until its page is emptied.
    mutating func remove(_ key: Key) {
        guard let page = pageOfKey.removeValue(forKey: key) else { return }
        pages[page].keys.remove(key)
    }

    mutating func removeAll() {
        pages.removeAll()
        pageOfKey.removeAll()
    }

    private mutating func placeInPage(_ page: Int, key: Key, width: Int, shelfHeight: Int) -> Placement? {
        var placement: Placement?
        if let shelf = pages[page].shelves.firstIndex(where: {
            $0.height == shelfHeight && $0.usedWidth + width <= pageWidth
        }) {
            placement = Placement(page: page, x: pages[page].shelves[shelf].usedWidth, y: pages[page].shelves[shelf].y)
            pages[page].shelves[shelf].usedWidth += width + Self.gap
        } else if pages[page].nextShelfY + shelfHeight <= pageHeight {
            let y = pages[page].nextShelfY
            pages[page].shelves.append(Shelf(y: y, height: shelfHeight, usedWidth: width + Self.gap))
            pages[page].nextShelfY += shelfHeight + Self.gap
            placement = Placement(page: page, x: 0, y: y)
        }
        guard let placement else { return nil }
        pages[page].keys.insert(key)
        pages[page].lastUsed = clock
        pageOfKey[key] = page
        return placement
    }
}
