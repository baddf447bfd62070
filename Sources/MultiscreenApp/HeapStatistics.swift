import CLinux
import Glibc

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

    /// Keeps every large block in a mapping of its own, given back to the kernel when freed. glibc raises its mmap
    /// threshold each time a large mmapped block is freed (mallopt(3), "M_MMAP_THRESHOLD": the dynamic threshold),
    /// after which Mesa's per-surface render buffers (~1-8 MB each) come from the heap and stay there when the
    /// surface goes. A kiosk that sees outputs come and go for months must give that memory back: fixing the
    /// threshold keeps every large buffer in its own mapping. The text cache relies on it too (``Canvas``): small
    /// texts share its atlas, every larger one is above this threshold. Once, at start.
    static func keepLargeBlocksMapped() {
        mallopt(M_MMAP_THRESHOLD, 128 * 1024)
    }
}
