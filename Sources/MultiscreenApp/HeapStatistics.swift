import CLinux

/// glibc's own account of the heap (mallinfo2(3)), for `status`: bytes in live allocations against bytes freed but
/// still held. RSS alone cannot tell a leak (live bytes grow) from fragmentation (free bytes grow).
struct HeapStatistics {
    /// Bytes of the arenas' heaps (main `brk` heap and thread arenas), free or not.
    var arenaBytes: Int
    /// Bytes in blocks the allocator mapped on their own (above the mmap threshold).
    var mappedBytes: Int
    /// Bytes in live allocations inside the arenas.
    var inUseBytes: Int
    /// Bytes of free chunks inside the arenas: freed, not yet reused or returned.
    var freeBytes: Int

    static var current: HeapStatistics {
        let info = mallinfo2()
        return HeapStatistics(
            arenaBytes: Int(info.arena), mappedBytes: Int(info.hblkhd), inUseBytes: Int(info.uordblks),
            freeBytes: Int(info.fordblks))
    }

    var counters: [String: Int] {
        [
            "heapArenaBytes": arenaBytes, "heapMappedBytes": mappedBytes, "heapInUseBytes": inUseBytes,
            "heapFreeBytes": freeBytes,
        ]
    }
}
