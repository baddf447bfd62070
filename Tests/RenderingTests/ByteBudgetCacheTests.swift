import Testing

@testable import Rendering

@Suite struct ByteBudgetCacheTests {
    @Test func nothingIsEvictedWhileItFits() {
        var cache = ByteBudgetCache<Int>(budget: 100)
        for key in 0..<10 {
            #expect(cache.evictions(toFit: 10).isEmpty)
            cache.insert(key, bytes: 10)
        }
        #expect(cache.bytes == 100 && cache.count == 10)
    }

    @Test func leastRecentlyUsedGoFirstAndTheBudgetHolds() {
        var cache = ByteBudgetCache<Int>(budget: 100)
        for key in 0..<10 { cache.insert(key, bytes: 10) }
        cache.touch(0)  // 0 is now the most recently used; 1, 2, 3 … the oldest.
        let victims = cache.evictions(toFit: 10)
        // Down to three quarters of the budget with the new entry: 100 → 60, four entries of 10.
        #expect(victims == [1, 2, 3, 4])
        #expect(!cache.contains(1) && cache.contains(0))
        cache.insert(10, bytes: 10)
        #expect(cache.bytes == 70 && cache.bytes <= cache.budget)
        #expect(cache.evicted == 4 && cache.peakBytes == 100)
    }

    @Test func anEntryLargerThanTheBudgetEmptiesTheCacheAndIsAdmitted() {
        var cache = ByteBudgetCache<String>(budget: 100)
        cache.insert("a", bytes: 40)
        cache.insert("b", bytes: 40)
        #expect(Set(cache.evictions(toFit: 500)) == ["a", "b"])
        cache.insert("huge", bytes: 500)
        #expect(cache.count == 1 && cache.bytes == 500)
        // The next insert evicts it.
        #expect(cache.evictions(toFit: 10) == ["huge"])
    }

    @Test func manyInsertsNeverExceedTheBudgetByMoreThanOneEntry() {
        var cache = ByteBudgetCache<Int>(budget: 32 << 20)
        var live: Set<Int> = []
        for key in 0..<2_000 {
            let size = (key * 7_919 % 97 + 1) * 40_000  // 40 KB … 3.9 MB, like text textures
            for victim in cache.evictions(toFit: size) { live.remove(victim) }
            cache.insert(key, bytes: size)
            live.insert(key)
            #expect(cache.bytes <= cache.budget)
        }
        #expect(cache.count == live.count)
    }

    @Test func entriesNotUsedSinceATimeExpireAndCountAsEvicted() {
        var cache = ByteBudgetCache<String>(budget: 100)
        cache.insert("shown once", bytes: 10, at: 100)
        cache.insert("shown", bytes: 10, at: 100)
        cache.insert("new", bytes: 10, at: 250)
        cache.touch("shown", at: 300)
        #expect(cache.expirations(usedBefore: 200) == ["shown once"])
        #expect(cache.contains("shown") && cache.contains("new") && !cache.contains("shown once"))
        #expect(cache.bytes == 20 && cache.evicted == 1)
        #expect(cache.expirations(usedBefore: 200).isEmpty)
    }
}
