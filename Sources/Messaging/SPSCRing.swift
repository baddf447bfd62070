import Atomics
import CLinux

/// A bounded single-producer/single-consumer ring of plain values.
///
/// One thread may call the producer methods (`tryPush`, `push(contentsOf:)`) and one other thread the consumer
/// methods (`tryPop`, `drain`); the statistics may be read from anywhere. Nothing else is shared, so there are no
/// locks and no read-modify-write instructions: each side stores only its own index (release) and reads the other's
/// (acquire) only when the copy it cached last time no longer tells it enough.
///
/// **Capacity.** The requested capacity is rounded *up* to a power of two (3 becomes 4) and every slot is usable: the
/// indices run freely over all of `UInt` and `tail &- head` is the fill level, so full and empty never look alike
/// and no slack slot is needed. A slot index is `index & mask`.
///
/// **Layout.** One allocation, aligned to 128 bytes (two cache lines, so the adjacent-line prefetcher cannot pair
/// them either): `tail`, the producer's private limit (below), `head`, the consumer's private cache of `tail`, its
/// depth statistic and its slipping state (``ConsumerEnd/slip(head:)``), then the slots, then 128 bytes of padding
/// so the last slot shares no line with whatever the allocator puts next.
///
/// **Hot paths.** The producer caches not `head` but `head + capacity`, the index it may not reach: "full" is then
/// one comparison of `tail` with that limit, as "empty" is one comparison of `head` with the cached `tail`. Each side
/// reads the other's index only when its cached copy says full or empty, and refreshes the cache from that load.
/// `pushSpinning` and `popSpinning` wait with the CPU's spin-wait hint between loads of the other index: on a 2-vCPU
/// AMD EPYC a round trip through two rings took a fifth less time with it, and throughput did not change
/// (docs/benchmarks.md, "Message ring"). A polling consumer that catches up with a streaming producer slips back
/// before it looks again (``ConsumerEnd/slip(head:)``), and a spinning producer that catches up with the consumer
/// around a full ring does the same (``ProducerEnd/slip()``), so those calls never trade cache lines element by
/// element (`tryPush`, `push(contentsOf:)` and `drain` return at once instead).
///
/// **Why `BitwiseCopyable`.** A slot is written and read with plain loads and stores: no retain/release, no
/// destructor to run on overwrite, nothing the optimiser must keep alive. Larger payloads travel out of line
/// (see ``TextSlab``) and the slot carries their position.
public final class SPSCRing<Element: BitwiseCopyable, Atomics: RingIndexAtomics>: @unchecked Sendable {
    /// The number of elements the ring holds when full (a power of two).
    public let capacity: Int
    @usableFromInline let mask: UInt
    @usableFromInline let atomics: Atomics
    @usableFromInline let slots: UnsafeMutablePointer<Element>
    /// The producer's last observed `head` plus `capacity`: `tail` may not reach it. Touched only by the producer.
    @usableFromInline let producerLimit: UnsafeMutablePointer<UInt>
    /// The consumer's last observed `tail`; touched only by the consumer.
    @usableFromInline let cachedTail: UnsafeMutablePointer<UInt>
    /// The largest fill level the consumer has found; stored only by the consumer, read by anyone. It is the word
    /// after `cachedTail` (see ``noteDepth(_:)``).
    @usableFromInline let maxDepth: UnsafeAtomic<UInt>
    @usableFromInline let headForStatistics: UnsafeAtomic<UInt>
    @usableFromInline let tailForStatistics: UnsafeAtomic<UInt>
    @usableFromInline let startIndex: UInt
    @usableFromInline let block: UnsafeMutableRawPointer

    /// Builds a ring whose indices start at `startIndex` (tests start near `UInt.max` to cross the wrap-around).
    ///
    /// - Parameter makeAtomics: receives the initialised storage of `head` and `tail` inside the ring's allocation.
    init(
        capacity requestedCapacity: Int, startIndex: UInt,
        makeAtomics: (
            _ head: UnsafeMutablePointer<UnsafeAtomic<UInt>.Storage>,
            _ tail: UnsafeMutablePointer<UnsafeAtomic<UInt>.Storage>
        ) -> Atomics
    ) {
        precondition(requestedCapacity >= 1, "a ring needs at least one slot")
        precondition(requestedCapacity <= 1 << 40, "ring capacity \(requestedCapacity) is implausibly large")
        let capacity = requestedCapacity <= 1 ? 1 : 1 << (Int.bitWidth - (requestedCapacity - 1).leadingZeroBitCount)
        precondition(MemoryLayout<Element>.alignment <= RingLayout.lineStride)
        // The consumer's private words must stay on its own pair of lines, before the slots.
        assert(RingLayout.slipOffset + 3 * MemoryLayout<UInt>.stride <= RingLayout.slotsOffset)
        self.capacity = capacity
        self.mask = UInt(capacity - 1)
        self.startIndex = startIndex
        let slotBytes = capacity * MemoryLayout<Element>.stride
        block = .allocate(
            byteCount: RingLayout.slotsOffset + slotBytes + RingLayout.lineStride, alignment: RingLayout.lineStride)
        let tail = (block + RingLayout.tailOffset).bindMemory(to: UnsafeAtomic<UInt>.Storage.self, capacity: 1)
        let head = (block + RingLayout.headOffset).bindMemory(to: UnsafeAtomic<UInt>.Storage.self, capacity: 1)
        tail.initialize(to: .init(startIndex))
        head.initialize(to: .init(startIndex))
        producerLimit = (block + RingLayout.producerPrivateOffset).bindMemory(to: UInt.self, capacity: 1)
        producerLimit.initialize(to: startIndex &+ UInt(capacity))
        cachedTail = (block + RingLayout.consumerPrivateOffset).bindMemory(to: UInt.self, capacity: 1)
        cachedTail.initialize(to: startIndex)
        // The slip's three words (``RingLayout/slipDistanceWord``), after the depth statistic.
        let slipWords = (block + RingLayout.slipOffset).bindMemory(to: UInt.self, capacity: 3)
        slipWords.initialize(to: SPSCRing.slipDistance(capacity: UInt(capacity)))
        (slipWords + 1).initialize(to: startIndex)
        (slipWords + 2).initialize(to: 0)
        let depth = (block + RingLayout.depthOffset).bindMemory(to: UnsafeAtomic<UInt>.Storage.self, capacity: 1)
        depth.initialize(to: .init(0))
        maxDepth = UnsafeAtomic(at: depth)
        headForStatistics = UnsafeAtomic(at: head)
        tailForStatistics = UnsafeAtomic(at: tail)
        slots = (block + RingLayout.slotsOffset).bindMemory(to: Element.self, capacity: capacity)
        atomics = makeAtomics(head, tail)
    }

    /// A ring over custom atomics (the interleaving explorer, the ThreadSanitizer canary).
    public convenience init(
        capacity: Int,
        makeAtomics: (
            _ head: UnsafeMutablePointer<UnsafeAtomic<UInt>.Storage>,
            _ tail: UnsafeMutablePointer<UnsafeAtomic<UInt>.Storage>
        ) -> Atomics
    ) {
        self.init(capacity: capacity, startIndex: 0, makeAtomics: makeAtomics)
    }

    deinit {
        // Elements are BitwiseCopyable: nothing to deinitialise, only the raw block to return.
        block.deallocate()
    }

    // MARK: Producer side

    /// Appends `element` unless the ring is full. Producer thread only.
    @inlinable
    public func tryPush(_ element: Element) -> Bool { producerEnd.tryPush(element) }

    /// Appends `element`, spinning while the ring is full. Producer thread only.
    @inlinable
    public func pushSpinning(_ element: Element) { producerEnd.pushSpinning(element) }

    /// Appends as many leading elements of `elements` as fit, publishing them with one release store.
    /// Producer thread only. - Returns: how many were appended (0 when full).
    @inlinable
    public func push(contentsOf elements: UnsafeBufferPointer<Element>) -> Int {
        producerEnd.push(contentsOf: elements)
    }

    /// The producer's end, for a loop that pushes many times (see ``Producer``). Producer thread only.
    @inlinable
    public var producer: Producer { Producer(ring: self, end: producerEnd) }

    @inlinable
    var producerEnd: ProducerEnd { ProducerEnd(atomics: atomics, slots: slots, mask: mask, limit: producerLimit) }

    // MARK: Consumer side

    /// Removes the oldest element, or returns nil when the ring is empty. Consumer thread only.
    @inlinable @inline(__always)
    public func tryPop() -> Element? { consumerEnd.tryPop() }

    /// Removes the oldest element, spinning while the ring is empty. Consumer thread only.
    @inlinable @inline(__always)
    public func popSpinning() -> Element { consumerEnd.popSpinning() }

    /// Hands every element available now (at most `maxCount`) to `body`, oldest first, then frees their slots with
    /// one release store. Consumer thread only. - Returns: how many elements were drained.
    @inlinable
    @discardableResult
    public func drain(maxCount: Int = .max, _ body: (Element) -> Void) -> Int {
        consumerEnd.drain(maxCount: maxCount, body)
    }

    /// The consumer's end, for a loop that pops many times (see ``Consumer``). Consumer thread only.
    @inlinable
    public var consumer: Consumer { Consumer(ring: self, end: consumerEnd) }

    @inlinable
    var consumerEnd: ConsumerEnd { ConsumerEnd(atomics: atomics, slots: slots, mask: mask, cachedTail: cachedTail) }

    /// Whether the consumer would find an element now. Consumer thread only; a relaxed load, meant to follow the
    /// sequentially consistent fence of the sleep protocol (``MessageConsumer/prepareToSleep()``).
    @inlinable
    public var hasElementsForConsumer: Bool {
        atomics.loadTail(ordering: .relaxed) != atomics.loadHead(ordering: .relaxed)
    }

    // MARK: Statistics (any thread)

    /// Counters as seen from any thread: each value is exact at some moment, the set is not a snapshot.
    public var statistics: RingStatistics {
        let drained = headForStatistics.load(ordering: .relaxed) &- startIndex
        let enqueued = tailForStatistics.load(ordering: .relaxed) &- startIndex
        return RingStatistics(
            enqueued: Int(truncatingIfNeeded: enqueued), drained: Int(truncatingIfNeeded: drained),
            rejectedFull: 0, maxDepth: Int(maxDepth.load(ordering: .relaxed)))
    }
}

extension SPSCRing where Atomics == HardwareRingAtomics {
    /// A ring holding at least `capacity` elements (rounded up to a power of two).
    public convenience init(capacity: Int) {
        self.init(capacity: capacity, startIndex: 0, makeAtomics: HardwareRingAtomics.init)
    }

    /// Test hook: indices start at `startIndex`, so a short test crosses the `UInt` wrap-around.
    convenience init(capacity: Int, startIndex: UInt) {
        self.init(capacity: capacity, startIndex: startIndex, makeAtomics: HardwareRingAtomics.init)
    }
}

// MARK: The two ends

extension SPSCRing {
    /// The producer's end of a ring: the ring's methods for the producer thread, with every pointer they use copied
    /// into this value. A loop that pushes many times takes it once (`let producer = ring.producer`) and keeps it in
    /// registers: called on the ring itself, each push re-reads `slots`, `mask` and the index pointers from the ring
    /// object wherever the optimiser cannot prove its own stores leave them unchanged. Keeps the ring alive.
    /// Producer thread only.
    @frozen
    public struct Producer {
        @usableFromInline let ring: SPSCRing
        @usableFromInline let end: ProducerEnd

        @inlinable
        init(ring: SPSCRing, end: ProducerEnd) {
            self.ring = ring
            self.end = end
        }

        /// ``SPSCRing/tryPush(_:)``.
        @inlinable
        public func tryPush(_ element: Element) -> Bool { end.tryPush(element) }

        /// ``SPSCRing/pushSpinning(_:)``.
        @inlinable
        public func pushSpinning(_ element: Element) { end.pushSpinning(element) }

        /// ``SPSCRing/push(contentsOf:)``.
        @inlinable
        public func push(contentsOf elements: UnsafeBufferPointer<Element>) -> Int {
            end.push(contentsOf: elements)
        }
    }

    /// The consumer's end of a ring, as ``Producer`` is the producer's. Keeps the ring alive. Consumer thread only.
    @frozen
    public struct Consumer {
        @usableFromInline let ring: SPSCRing
        @usableFromInline let end: ConsumerEnd

        @inlinable
        init(ring: SPSCRing, end: ConsumerEnd) {
            self.ring = ring
            self.end = end
        }

        /// ``SPSCRing/tryPop()``.
        @inlinable
        public func tryPop() -> Element? { end.tryPop() }

        /// ``SPSCRing/popSpinning()``.
        @inlinable
        public func popSpinning() -> Element { end.popSpinning() }

        /// ``SPSCRing/drain(maxCount:_:)``.
        @inlinable
        @discardableResult
        public func drain(maxCount: Int = .max, _ body: (Element) -> Void) -> Int {
            end.drain(maxCount: maxCount, body)
        }
    }

    /// The producer's operations, over copies of the pointers they need (no reference to the ring: the caller keeps
    /// it alive). The only implementation of them: the ring's methods and ``Producer`` both call these.
    @frozen @usableFromInline
    struct ProducerEnd {
        @usableFromInline let atomics: Atomics
        @usableFromInline let slots: UnsafeMutablePointer<Element>
        @usableFromInline let mask: UInt
        /// The producer's last observed `head` plus the capacity: `tail` may not reach it.
        @usableFromInline let limit: UnsafeMutablePointer<UInt>

        @inlinable
        init(atomics: Atomics, slots: UnsafeMutablePointer<Element>, mask: UInt, limit: UnsafeMutablePointer<UInt>) {
            self.atomics = atomics
            self.slots = slots
            self.mask = mask
            self.limit = limit
        }

        @inlinable
        func tryPush(_ element: Element) -> Bool {
            let tail = atomics.loadTail(ordering: .relaxed)
            if tail == limit.pointee {
                let newLimit = atomics.loadHead(ordering: .acquiring) &+ mask &+ 1
                limit.pointee = newLimit
                if tail == newLimit { return false }
            }
            write(element, at: tail)
            return true
        }

        /// While full, each turn of the spin is the spin-wait hint and one acquire load of `head`. When the producer
        /// reached its limit and the consumer has freed fewer than ``SPSCRing/slipDistance(capacity:)`` slots since
        /// it last looked, the producer slips before it writes (``slip()``).
        @inlinable
        func pushSpinning(_ element: Element) {
            let tail = atomics.loadTail(ordering: .relaxed)
            if tail == limit.pointee {
                var newLimit = atomics.loadHead(ordering: .acquiring) &+ mask &+ 1
                while tail == newLimit {
                    ms_spin_wait_hint()
                    newLimit = atomics.loadHead(ordering: .acquiring) &+ mask &+ 1
                }
                if newLimit &- tail < SPSCRing.slipDistance(capacity: mask &+ 1) { newLimit = slip() }
                limit.pointee = newLimit
            }
            write(element, at: tail)
        }

        /// The consumer's temporal slipping (``ConsumerEnd/slip(head:)``) mirrored, for a producer that caught up with
        /// the consumer around the ring: the consumer has freed fewer slots than a pair of cache lines holds since the
        /// producer last looked at `head` (it found the ring full, or nearly), so writing now
        /// would write the line the consumer is reading, and loading `head` again for the next slot would take
        /// `head`'s line from the consumer once per element. The producer leaves both alone for
        /// ``RingLayout/slipSpins`` spin-wait hints, then takes a fresh `head` (a consumer that keeps reading has
        /// freed lines by then) and writes on that one load. On the AMD EPYC of docs/benchmarks.md ("Message ring"),
        /// where the consumer is the slower side, a ring at capacity 1024 otherwise stayed full and the two cores
        /// traded those lines element by element (0.5 × rigtorp/SPSCQueue's throughput).
        ///
        /// Unlike the consumer's, this slip is never disarmed: it delays only a push that found the ring full or
        /// nearly full, by at most the hints, a wait the full ring has already made likely. It never waits for space
        /// to appear, so a consumer that frees one slot and stops lets the push through. Returns the fresh limit.
        @inlinable @inline(__always)
        func slip() -> UInt {
            for _ in 0..<RingLayout.slipSpins { ms_spin_wait_hint() }
            return atomics.loadHead(ordering: .acquiring) &+ mask &+ 1
        }

        @inlinable @inline(__always)
        func write(_ element: Element, at tail: UInt) {
            (slots + Int(bitPattern: tail & mask)).initialize(to: element)
            atomics.didWriteSlot(at: tail)
            atomics.storeTail(tail &+ 1, ordering: .releasing)
        }

        @inlinable
        func push(contentsOf elements: UnsafeBufferPointer<Element>) -> Int {
            guard !elements.isEmpty, let source = elements.baseAddress else { return 0 }
            let tail = atomics.loadTail(ordering: .relaxed)
            var free = Int(limit.pointee &- tail)
            if free < elements.count {
                let newLimit = atomics.loadHead(ordering: .acquiring) &+ mask &+ 1
                limit.pointee = newLimit
                free = Int(newLimit &- tail)
            }
            let count = min(free, elements.count)
            if count == 0 { return 0 }
            let first = Int(bitPattern: tail & mask)
            let beforeWrap = min(count, Int(bitPattern: mask) + 1 - first)
            (slots + first).initialize(from: source, count: beforeWrap)
            slots.initialize(from: source + beforeWrap, count: count - beforeWrap)
            for offset in 0..<UInt(count) { atomics.didWriteSlot(at: tail &+ offset) }
            atomics.storeTail(tail &+ UInt(count), ordering: .releasing)
            return count
        }
    }

    /// The consumer's operations, as ``ProducerEnd`` holds the producer's.
    @frozen @usableFromInline
    struct ConsumerEnd {
        @usableFromInline let atomics: Atomics
        @usableFromInline let slots: UnsafeMutablePointer<Element>
        @usableFromInline let mask: UInt
        /// The consumer's last observed `tail`; the word after it is the depth statistic (``noteDepth(_:)``), the
        /// three after that the slip's state (``RingLayout/slipDistanceWord``).
        @usableFromInline let cachedTail: UnsafeMutablePointer<UInt>

        @inlinable
        init(
            atomics: Atomics, slots: UnsafeMutablePointer<Element>, mask: UInt, cachedTail: UnsafeMutablePointer<UInt>
        ) {
            self.atomics = atomics
            self.slots = slots
            self.mask = mask
            self.cachedTail = cachedTail
        }

        @inlinable @inline(__always)
        func tryPop() -> Element? {
            let head = atomics.loadHead(ordering: .relaxed)
            if head == cachedTail.pointee {
                var tail = atomics.loadTail(ordering: .acquiring)
                if tail == head {
                    rearmSlip(at: head)
                    return nil
                }
                if tail &- head < cachedTail[RingLayout.slipDistanceWord] { tail = slip(head: head) }
                cachedTail.pointee = tail
                noteDepth(tail &- head)
            }
            return read(at: head)
        }

        /// While empty, each turn of the spin is the spin-wait hint and one acquire load of `tail`.
        @inlinable @inline(__always)
        func popSpinning() -> Element {
            let head = atomics.loadHead(ordering: .relaxed)
            if head == cachedTail.pointee {
                var tail = atomics.loadTail(ordering: .acquiring)
                if tail == head {
                    rearmSlip(at: head)
                    repeat {
                        ms_spin_wait_hint()
                        tail = atomics.loadTail(ordering: .acquiring)
                    } while tail == head
                }
                if tail &- head < cachedTail[RingLayout.slipDistanceWord] { tail = slip(head: head) }
                cachedTail.pointee = tail
                noteDepth(tail &- head)
            }
            return read(at: head)
        }

        // MARK: Temporal slipping

        /// FastForward's temporal slipping, for a consumer that polls (`tryPop`, `popSpinning`). It found the
        /// producer fewer than ``slipDistance(capacity:)`` elements ahead: before reading, it leaves the producer's
        /// lines alone for ``RingLayout/slipSpins`` spin-wait hints, then takes a fresh `tail`. A streaming
        /// producer is by then lines ahead, and the consumer reads lines the producer has finished, one `tail` per
        /// batch. Without it, on a processor where the consumer is the faster side, a consumer that has caught up
        /// loads `tail` after every store and reads each slot while its line is being written: the two cores lock
        /// into trading both lines element by element, at 0.2–0.3 × rigtorp/SPSCQueue's throughput on the Xeon of
        /// docs/benchmarks.md ("Message ring").
        ///
        /// A producer that is not streaming (a request waiting for its reply) is not that far ahead when the
        /// consumer looks again: the slip failed, having delayed the one element it found. Slipping is then
        /// disarmed (the distance word is 0, so the check before each slip costs one comparison and never
        /// passes) until the consumer finds the ring empty at or past a hold-off index: 64 elements on, doubling
        /// with each failure up to 65 536, reset by a success. An exchange of single requests then pays one wait
        /// per 65 536 of them. `drain`, the display thread's call, never slips: it takes what is there and goes
        /// back to its work. Returns the fresh `tail`.
        ///
        /// Inlined, as `tryPop` and `popSpinning` are: as a call, it costs the caller's loop the registers the
        /// call clobbers, and the spills made the consumer slow enough to lose at capacity 10^7.
        @inlinable @inline(__always)
        func slip(head: UInt) -> UInt {
            for _ in 0..<RingLayout.slipSpins { ms_spin_wait_hint() }
            let tail = atomics.loadTail(ordering: .acquiring)
            if tail &- head >= SPSCRing.slipDistance(capacity: mask &+ 1) {
                cachedTail[RingLayout.slipBackoffWord] = 0
            } else {
                let backoff = min(max(cachedTail[RingLayout.slipBackoffWord] &* 2, 64), 65_536)
                cachedTail[RingLayout.slipBackoffWord] = backoff
                cachedTail[RingLayout.slipHoldoffWord] = head &+ backoff
                cachedTail[RingLayout.slipDistanceWord] = 0
            }
            return tail
        }

        /// Arms slipping again once the consumer, having caught up, is at or past the hold-off index.
        @inlinable @inline(__always)
        func rearmSlip(at head: UInt) {
            let distance = SPSCRing.slipDistance(capacity: mask &+ 1)
            if distance > 0 && cachedTail[RingLayout.slipDistanceWord] == 0
                && Int(bitPattern: head &- cachedTail[RingLayout.slipHoldoffWord]) >= 0
            {
                cachedTail[RingLayout.slipDistanceWord] = distance
            }
        }

        @inlinable @inline(__always)
        func read(at head: UInt) -> Element {
            atomics.willReadSlot(at: head)
            let element = slots[Int(bitPattern: head & mask)]
            atomics.storeHead(head &+ 1, ordering: .releasing)
            return element
        }

        @inlinable
        func drain(maxCount: Int, _ body: (Element) -> Void) -> Int {
            let head = atomics.loadHead(ordering: .relaxed)
            let tail = atomics.loadTail(ordering: .acquiring)
            cachedTail.pointee = tail
            let available = tail &- head
            if available == 0 { return 0 }
            noteDepth(available)
            let count = min(Int(available), maxCount)
            for offset in 0..<UInt(count) {
                let index = head &+ offset
                atomics.willReadSlot(at: index)
                body(slots[Int(bitPattern: index & mask)])
            }
            atomics.storeHead(head &+ UInt(count), ordering: .releasing)
            return count
        }

        /// Records a fill level the consumer found, in the word after `cachedTail` (``RingLayout/depthOffset``), so
        /// a consumer loop keeps no extra pointer live for a statistic.
        @inlinable @inline(__always)
        func noteDepth(_ depth: UInt) {
            let storage = UnsafeMutableRawPointer(cachedTail + 1).assumingMemoryBound(
                to: UnsafeAtomic<UInt>.Storage.self)
            let maxDepth = UnsafeAtomic<UInt>(at: storage)
            if depth > maxDepth.load(ordering: .relaxed) { maxDepth.store(depth, ordering: .relaxed) }
        }
    }
}

extension SPSCRing {
    /// How far apart the two sides are after a slip that succeeds (``ConsumerEnd/slip(head:)``,
    /// ``ProducerEnd/slip()``): one pair of cache lines of elements (``RingLayout/lineStride``), so that each
    /// side then works on lines the other has finished with. 0, no slipping, for elements of more than one line
    /// (64 bytes), which fit fewer than two to a pair, and for a ring of fewer than two pairs' worth, where the
    /// sides could never get that far apart.
    @inlinable
    static func slipDistance(capacity: UInt) -> UInt {
        let perPair = UInt(RingLayout.lineStride / MemoryLayout<Element>.stride)
        return perPair > 1 && capacity >= 2 * perPair ? perPair : 0
    }
}

/// Byte offsets inside a ring's allocation; see ``SPSCRing`` for why 128.
@usableFromInline
enum RingLayout {
    @usableFromInline static let lineStride = 128
    static let tailOffset = 0
    static let producerPrivateOffset = 128
    static let headOffset = 256
    static let consumerPrivateOffset = 384
    /// Right after the consumer's cached `tail` (``SPSCRing/noteDepth(_:)`` relies on it).
    static let depthOffset = consumerPrivateOffset + MemoryLayout<UInt>.stride
    /// Words after `cachedTail` (``SPSCRing/ConsumerEnd/slip(head:)``): the distance below which the consumer
    /// slips (0 while disarmed), the head index from which it may be armed again, and the last failure's backoff.
    @usableFromInline static let slipDistanceWord = 2
    @usableFromInline static let slipHoldoffWord = 3
    @usableFromInline static let slipBackoffWord = 4
    static let slipOffset = consumerPrivateOffset + slipDistanceWord * MemoryLayout<UInt>.stride
    /// Spin-wait hints in one slip, either side's: 64 × 21 ns on the Xeon and 64 × 25 ns on the AMD EPYC the
    /// figures come from; 32 did less on the Xeon (docs/benchmarks.md, "Message ring").
    @usableFromInline static let slipSpins = 64
    static let slotsOffset = 512
}
