import Atomics

/// Out-of-line bytes for messages: a single-producer/single-consumer byte ring paired with one message ring.
///
/// Why: a ring slot must be a plain value (no `String`, no retain/release on the hot path), but a message carries
/// text of up to ``Message/maximumTextBytes``. The producer copies the UTF-8 into this slab and the slot carries its
/// position (`start`, free-running) and lengths. A reservation never straddles the end: if it would, the producer
/// skips to the beginning, and because the consumer frees in FIFO order by moving `released` to the end of the last
/// message it read, skipped bytes are freed with it.
///
/// Publication piggybacks on the message ring: the producer writes the bytes before its release store of the
/// message ring's tail, the consumer reads them after its acquire load of it. Only freeing needs its own index:
/// the consumer stores `released` (release) after it has copied the bytes out, the producer loads it (acquire)
/// before it overwrites them, and only when its cached copy says the space is not free.
final class TextSlab: @unchecked Sendable {
    let capacity: Int
    private let mask: UInt
    private let bytes: UnsafeMutableRawPointer
    private let block: UnsafeMutableRawPointer
    private let released: UnsafeAtomic<UInt>
    /// Producer-private: where the next reservation starts, and the last `released` it saw.
    private let producerState: UnsafeMutablePointer<(reserved: UInt, cachedReleased: UInt)>

    /// - Parameter capacity: rounded up to a power of two.
    init(capacity requested: Int) {
        precondition(requested >= 1)
        capacity = requested <= 1 ? 1 : 1 << (Int.bitWidth - (requested - 1).leadingZeroBitCount)
        mask = UInt(capacity - 1)
        block = .allocate(byteCount: 256 + capacity, alignment: 128)
        let releasedStorage = block.bindMemory(to: UnsafeAtomic<UInt>.Storage.self, capacity: 1)
        releasedStorage.initialize(to: .init(0))
        released = UnsafeAtomic(at: releasedStorage)
        producerState = (block + 128).bindMemory(to: (reserved: UInt, cachedReleased: UInt).self, capacity: 1)
        producerState.initialize(to: (0, 0))
        bytes = block + 256
    }

    deinit { block.deallocate() }

    /// Producer: where the next reservation would start, to roll back to if the message ring refuses the slot.
    var reservationMark: UInt { producerState.pointee.reserved }

    /// Producer: forgets every reservation made after `mark` (their slots were never published).
    func rollBack(to mark: UInt) { producerState.pointee.reserved = mark }

    /// Producer: reserves contiguous room for the UTF-8 of `first`, `second` and `third` and copies them back to back.
    /// - Returns: the free-running start of the copy, or nil when the slab has no room now.
    func write(_ first: String, _ second: String, _ third: String = "") -> UInt? {
        let count = first.utf8.count + second.utf8.count + third.utf8.count
        precondition(count <= capacity, "text larger than its slab")
        var start = producerState.pointee.reserved
        let offset = Int(start & mask)
        if offset + count > capacity { start &+= UInt(capacity - offset) }
        let end = start &+ UInt(count)
        if end &- producerState.pointee.cachedReleased > UInt(capacity) {
            producerState.pointee.cachedReleased = released.load(ordering: .acquiring)
            if end &- producerState.pointee.cachedReleased > UInt(capacity) { return nil }
        }
        let destination = bytes + Int(start & mask)
        let firstCount = Self.copyUTF8(of: first, to: destination)
        let secondCount = Self.copyUTF8(of: second, to: destination + firstCount)
        _ = Self.copyUTF8(of: third, to: destination + firstCount + secondCount)
        producerState.pointee.reserved = end
        return start
    }

    private static func copyUTF8(of text: String, to destination: UnsafeMutableRawPointer) -> Int {
        var text = text
        // Native strings are contiguous already; bridged or lazily built ones become so here, once.
        return text.withUTF8 { source in
            if let base = source.baseAddress { destination.copyMemory(from: base, byteCount: source.count) }
            return source.count
        }
    }

    /// Consumer: the bytes at a position a published slot names. Valid until `release` moves past them.
    func bytes(at start: UInt, count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: bytes + Int(start & mask), count: count)
    }

    /// Consumer: frees everything before `end` (the end of the last message it has finished reading).
    func release(upTo end: UInt) { released.store(end, ordering: .releasing) }
}
