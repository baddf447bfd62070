/// Least-recently-used bookkeeping by bytes, for caches whose entries live elsewhere (GL textures): it says which
/// keys to delete so that a new entry fits the budget. Pure, so the policy is tested without a GL context.
struct ByteBudgetCache<Key: Hashable> {
    private struct Entry {
        var bytes: Int
        var lastUsed: UInt64
        /// The caller's time of the last use (see ``expirations(usedBefore:)``).
        var lastUsedAt: UInt64
    }

    let budget: Int
    private var entries: [Key: Entry] = [:]
    private var clock: UInt64 = 0
    private(set) var bytes = 0
    private(set) var peakBytes = 0
    private(set) var evicted = 0

    init(budget: Int) {
        self.budget = budget
    }

    var count: Int { entries.count }

    /// The time (as given to ``insert(_:bytes:at:)``/``touch(_:at:)``) of the entry used least recently, nil when empty.
    var oldestUse: UInt64? { entries.values.map(\.lastUsedAt).min() }

    func contains(_ key: Key) -> Bool { entries[key] != nil }

    /// Marks `key` as just used, at `time` on the caller's clock.
    mutating func touch(_ key: Key, at time: UInt64 = 0) {
        clock += 1
        entries[key]?.lastUsed = clock
        entries[key]?.lastUsedAt = time
    }

    /// The keys last used before `time`, removed (and counted as evicted): so that entries nobody draws any more
    /// are given back in minutes, not only once the budget is full.
    mutating func expirations(usedBefore time: UInt64) -> [Key] {
        let expired = entries.filter { $0.value.lastUsedAt < time }.map(\.key)
        for key in expired { remove(key) }
        evicted += expired.count
        return expired
    }

    /// The keys to delete, least recently used first, before an entry of `bytes` is added: none while it fits.
    /// When it does not, enough go that the cache drops to three quarters of the budget with the new entry, so
    /// eviction (a sort) is rare. An entry larger than the whole budget empties the cache and is still admitted.
    mutating func evictions(toFit bytes: Int) -> [Key] {
        guard self.bytes + bytes > budget, !entries.isEmpty else { return [] }
        let target = max(budget * 3 / 4 - bytes, 0)
        var victims: [Key] = []
        for (key, _) in entries.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            guard self.bytes > target else { break }
            victims.append(key)
            remove(key)
            evicted += 1
        }
        return victims
    }

    mutating func insert(_ key: Key, bytes: Int, at time: UInt64 = 0) {
        clock += 1
        if let old = entries[key] { self.bytes -= old.bytes }
        entries[key] = Entry(bytes: bytes, lastUsed: clock, lastUsedAt: time)
        self.bytes += bytes
        peakBytes = max(peakBytes, self.bytes)
    }

    mutating func remove(_ key: Key) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        bytes -= entry.bytes
    }

    mutating func removeAll() {
        entries.removeAll()
        bytes = 0
    }
}
