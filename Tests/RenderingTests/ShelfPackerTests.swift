import Testing

@testable import Rendering

@Suite struct ShelfPackerTests {
    /// Places never overlap (gap included) and stay inside the page.
    private static func disjoint(_ placed: [(ShelfPacker<Int>.Placement, Int, Int)], pageWidth: Int, pageHeight: Int)
        -> Bool
    {
        for (index, (a, aw, ah)) in placed.enumerated() {
            guard a.x >= 0, a.y >= 0, a.x + aw <= pageWidth, a.y + ah <= pageHeight else { return false }
            for (b, bw, bh) in placed[(index + 1)...] where a.page == b.page {
                let apart = a.x + aw + 1 <= b.x || b.x + bw + 1 <= a.x || a.y + ah + 1 <= b.y || b.y + bh + 1 <= a.y
                if !apart { return false }
            }
        }
        return true
    }

    @Test func textsOfOneHeightShareAShelfLeftToRight() {
        var packer = ShelfPacker<Int>(pageWidth: 100, pageHeight: 100, maxPages: 1)
        let a = packer.place(0, width: 30, height: 10)
        let b = packer.place(1, width: 30, height: 12)  // Rounded up to the same 16-pixel shelf.
        #expect(a.0 == .init(page: 0, x: 0, y: 0) && b.0 == .init(page: 0, x: 31, y: 0))
        let c = packer.place(2, width: 30, height: 20)  // A taller class: a new shelf below.
        #expect(c.0 == .init(page: 0, x: 0, y: 17))
        #expect(a.evicted.isEmpty && b.evicted.isEmpty && c.evicted.isEmpty && packer.count == 3)
    }

    @Test func aFullAtlasEmptiesItsLeastRecentlyUsedPageWhole() {
        var packer = ShelfPacker<Int>(pageWidth: 64, pageHeight: 16, maxPages: 2)
        // Two 31-wide texts per page (31 + gap + 31 = 63 ≤ 64).
        for key in 0..<4 { #expect(packer.place(key, width: 31, height: 16).evicted.isEmpty) }
        #expect(packer.pageCount == 2)
        packer.touch(0)  // Page 0 is now the most recently used.
        let (place, evicted) = packer.place(4, width: 31, height: 16)
        #expect(place == .init(page: 1, x: 0, y: 0))
        #expect(Set(evicted) == [2, 3] && packer.evicted == 2)
        #expect(packer.contains(0) && packer.contains(1) && !packer.contains(2) && packer.contains(4))
        #expect(packer.pageCount == 2)
    }

    @Test func onlyTextsThatFitAPageAreTaken() {
        let packer = ShelfPacker<Int>(pageWidth: 64, pageHeight: 32, maxPages: 1)
        #expect(packer.fits(width: 64, height: 32))
        #expect(!packer.fits(width: 65, height: 1) && !packer.fits(width: 1, height: 33))
        #expect(!packer.fits(width: 0, height: 10))
    }

    /// Thousands of texts of random sizes through a small atlas: places are always disjoint within the live texts,
    /// the page count never exceeds its bound, and every key is either placed or was reported evicted.
    @Test func manyRandomTextsStayDisjointAndBounded() {
        var generator = SystemRandomNumberGenerator()
        var packer = ShelfPacker<Int>(pageWidth: 256, pageHeight: 128, maxPages: 3)
        var live: [Int: (ShelfPacker<Int>.Placement, Int, Int)] = [:]
        for key in 0..<5000 {
            let width = Int.random(in: 1...256, using: &generator)
            let height = Int.random(in: 1...40, using: &generator)
            let (place, evicted) = packer.place(key, width: width, height: height)
            for victim in evicted { #expect(live.removeValue(forKey: victim) != nil) }
            live[key] = (place, width, height)
            if key % 7 == 0, let any = live.keys.randomElement(using: &generator) { packer.touch(any) }
            #expect(packer.pageCount <= 3 && packer.count == live.count)
        }
        #expect(Self.disjoint(Array(live.values), pageWidth: 256, pageHeight: 128))
        #expect(packer.evicted > 0)
    }
}
