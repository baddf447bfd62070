import Atomics

/// The only shared state of an ``SPSCRing``: its two free-running indices, and the plain slot accesses that those
/// indices publish.
///
/// The ring reaches every cross-thread operation through this protocol so that a test can substitute an
/// implementation that stops the calling thread at each one, enumerates every interleaving of two small programs
/// and checks happens-before for the slots (see `Tests/MessagingTests/InterleavingExplorer.swift`), and so that
/// `ring-stress` can plug in a deliberately broken ordering to prove ThreadSanitizer notices. Production code uses
/// ``HardwareRingAtomics``, whose methods inline to single instructions once the ring is specialised.
///
/// `head` is the index of the next slot the consumer reads; only the consumer stores it. `tail` is the index of
/// the next slot the producer writes; only the producer stores it. Both only ever grow (modulo `UInt` wrap-around).
public protocol RingIndexAtomics {
    func loadHead(ordering: AtomicLoadOrdering) -> UInt
    func storeHead(_ value: UInt, ordering: AtomicStoreOrdering)
    func loadTail(ordering: AtomicLoadOrdering) -> UInt
    func storeTail(_ value: UInt, ordering: AtomicStoreOrdering)
    /// The producer has just written the slot for `index` (a plain, non-atomic write).
    func didWriteSlot(at index: UInt)
    /// The consumer is about to read the slot for `index` (a plain, non-atomic read).
    func willReadSlot(at index: UInt)
}

extension RingIndexAtomics {
    @inlinable @inline(__always)
    public func didWriteSlot(at index: UInt) {}

    @inlinable @inline(__always)
    public func willReadSlot(at index: UInt) {}
}

/// The real thing: the two indices as hardware atomics in storage the ring placed on separate cache lines.
public struct HardwareRingAtomics: RingIndexAtomics {
    @usableFromInline let head: UnsafeAtomic<UInt>
    @usableFromInline let tail: UnsafeAtomic<UInt>

    /// - Parameters: `head`, `tail`: initialised storage that outlives this value (the ring's own allocation).
    @inlinable
    public init(
        head: UnsafeMutablePointer<UnsafeAtomic<UInt>.Storage>, tail: UnsafeMutablePointer<UnsafeAtomic<UInt>.Storage>
    ) {
        self.head = UnsafeAtomic(at: head)
        self.tail = UnsafeAtomic(at: tail)
    }

    // swift-atomics wants orderings that are constants at the call site; these switches fold away once the ring's
    // constant orderings are inlined into them.

    @inlinable @inline(__always)
    public func loadHead(ordering: AtomicLoadOrdering) -> UInt { Self.load(head, ordering) }

    @inlinable @inline(__always)
    public func storeHead(_ value: UInt, ordering: AtomicStoreOrdering) { Self.store(head, value, ordering) }

    @inlinable @inline(__always)
    public func loadTail(ordering: AtomicLoadOrdering) -> UInt { Self.load(tail, ordering) }

    @inlinable @inline(__always)
    public func storeTail(_ value: UInt, ordering: AtomicStoreOrdering) { Self.store(tail, value, ordering) }

    @inlinable @inline(__always)
    static func load(_ atomic: UnsafeAtomic<UInt>, _ ordering: AtomicLoadOrdering) -> UInt {
        switch ordering {
        case .relaxed: atomic.load(ordering: .relaxed)
        case .acquiring: atomic.load(ordering: .acquiring)
        default: atomic.load(ordering: .sequentiallyConsistent)
        }
    }

    @inlinable @inline(__always)
    static func store(_ atomic: UnsafeAtomic<UInt>, _ value: UInt, _ ordering: AtomicStoreOrdering) {
        switch ordering {
        case .relaxed: atomic.store(value, ordering: .relaxed)
        case .releasing: atomic.store(value, ordering: .releasing)
        default: atomic.store(value, ordering: .sequentiallyConsistent)
        }
    }
}
