import Atomics
import Testing

@testable import Messaging

/// Hardware atomics that count each side's loads of the other's index and can act as the other side in the middle
/// of one: `onTailLoad` runs before the consumer's load number N of `tail` returns, `onHeadLoad` before the
/// producer's load number N of `head`, so a single-threaded test can add or remove elements while one side slips,
/// as the other side on another core would.
private final class IndexLoads: @unchecked Sendable {
    /// The consumer's loads of `tail`.
    var count = 0
    var onTailLoad: ((Int) -> Void)?
    /// The producer's loads of `head`.
    var headCount = 0
    var onHeadLoad: ((Int) -> Void)?
}

private struct CountingAtomics: RingIndexAtomics {
    let hardware: HardwareRingAtomics
    let loads: IndexLoads

    /// Counts the producer's loads (acquiring), not the consumer's of its own index (relaxed).
    func loadHead(ordering: AtomicLoadOrdering) -> UInt {
        if ordering == .acquiring {
            loads.headCount += 1
            loads.onHeadLoad?(loads.headCount)
        }
        return hardware.loadHead(ordering: ordering)
    }
    func storeHead(_ value: UInt, ordering: AtomicStoreOrdering) { hardware.storeHead(value, ordering: ordering) }
    func storeTail(_ value: UInt, ordering: AtomicStoreOrdering) { hardware.storeTail(value, ordering: ordering) }
    /// Counts the consumer's loads (acquiring), not the producer's of its own index (relaxed).
    func loadTail(ordering: AtomicLoadOrdering) -> UInt {
        if ordering == .acquiring {
            loads.count += 1
            loads.onTailLoad?(loads.count)
        }
        return hardware.loadTail(ordering: ordering)
    }
}

/// Temporal slipping, observed through how often each side loads the other's index: the polling consumer's
/// (``SPSCRing/ConsumerEnd/slip(head:)``) loads `tail` once per refresh and a second time when it slips; the
/// spinning producer's (``SPSCRing/ProducerEnd/slip()``) loads `head` once more when it slips.
@Suite("SPSC ring: each side slips back where the two would trade cache lines element by element")
struct RingSlipTests {
    private static func ring<Element: BitwiseCopyable>(
        _: Element.Type, capacity: Int = 1024, startIndex: UInt = 0
    ) -> (SPSCRing<Element, CountingAtomics>, IndexLoads) {
        let loads = IndexLoads()
        let ring = SPSCRing<Element, CountingAtomics>(capacity: capacity, startIndex: startIndex) { head, tail in
            CountingAtomics(hardware: HardwareRingAtomics(head: head, tail: tail), loads: loads)
        }
        return (ring, loads)
    }

    /// Looks at the empty ring, then pushes one element and pops it, as a request/reply exchange does; returns
    /// how many times the consumer loaded `tail` to pop it (2 when it slipped).
    private static func tailLoadsOfASingleRequest(
        _ ring: SPSCRing<Int, CountingAtomics>, _ loads: IndexLoads, value: Int
    ) -> Int {
        #expect(ring.tryPop() == nil)
        #expect(ring.tryPush(value))
        let before = loads.count
        #expect(ring.tryPop() == value)
        return loads.count - before
    }

    /// A request/reply exchange: every element arrives alone, and the producer adds nothing while the consumer
    /// slips. The first slip fails, so slipping is held off for 64 elements, then 128, then 256: the consumer
    /// waits once per hold-off, not once per element.
    @Test(arguments: [0, UInt.max - 100])
    func aProducerThatIsNotStreamingHoldsSlippingOffForDoublingStretches(startIndex: UInt) {
        let (ring, loads) = Self.ring(Int.self, startIndex: startIndex)
        var slips: [Int] = []
        for element in 0..<(1 + 64 + 128 + 256 + 1) {
            if Self.tailLoadsOfASingleRequest(ring, loads, value: element) == 2 { slips.append(element) }
        }
        #expect(slips == [0, 64, 64 + 128, 64 + 128 + 256])
    }

    /// A streaming producer: while the consumer slips, the producer adds a pair of cache lines' worth, so the
    /// consumer reads them all on that one `tail`, and the next time it finds the producer close it slips again.
    @Test func aSlipThatFindsTheProducerAheadKeepsSlipping() {
        let (ring, loads) = Self.ring(Int.self)
        let distance = 128 / MemoryLayout<Int>.stride
        var next = 0
        func push() {
            #expect(ring.tryPush(next))
            next += 1
        }
        defer { loads.onTailLoad = nil }  // the hook holds the ring, which holds the hook
        // Each round loads `tail` three times: the refresh that finds one element, the slip's look (during
        // which the producer streams on) and the look that finds the ring empty.
        loads.onTailLoad = { load in
            if load % 3 == 2 { for _ in 0..<distance { push() } }
        }
        for round in 0..<3 {
            push()
            let before = loads.count
            for expected in (round * (distance + 1))..<((round + 1) * (distance + 1)) {
                #expect(ring.tryPop() == expected)
            }
            #expect(loads.count - before == 2, "round \(round): one refresh and one slip for \(distance + 1) elements")
            #expect(ring.tryPop() == nil)
        }
    }

    /// The hold-off doubles up to 65 536 elements and stays there; a slip that succeeds resets it, so the next
    /// failure holds off for 64 again.
    @Test func theHoldOffIsCappedAndASuccessResetsIt() {
        let (ring, loads) = Self.ring(Int.self)
        var slips: [Int] = []
        var element = 0
        while slips.count < 13 {
            if Self.tailLoadsOfASingleRequest(ring, loads, value: element) == 2 { slips.append(element) }
            element += 1
        }
        let holdOffs = zip(slips, slips.dropFirst()).map { $1 - $0 }
        #expect(holdOffs == [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16_384, 32_768, 65_536, 65_536])

        // Requests until the next slip, now one during which the producer streams a pair of lines' worth: it
        // succeeds, so slipping is armed again at once, and the next failure holds off for 64 only.
        defer { loads.onTailLoad = nil }  // the hook holds the ring, which holds the hook
        let distance = 128 / MemoryLayout<Int>.stride
        var loadsInPop = 0
        var streaming = false
        loads.onTailLoad = { _ in
            loadsInPop += 1
            guard streaming && loadsInPop == 2 else { return }  // the slip's look
            for _ in 0..<distance {
                #expect(ring.tryPush(element))
                element += 1
            }
        }
        var slipped = false
        while !slipped {
            #expect(ring.tryPop() == nil)
            let request = element
            #expect(ring.tryPush(request))
            element += 1
            (loadsInPop, streaming) = (0, true)
            #expect(ring.tryPop() == request)
            streaming = false
            slipped = loadsInPop == 2
            for expected in (request + 1)..<element { #expect(ring.tryPop() == expected) }
        }
        loads.onTailLoad = nil
        #expect(Self.tailLoadsOfASingleRequest(ring, loads, value: element) == 2, "armed again after the success")
        let failed = element
        repeat { element += 1 } while Self.tailLoadsOfASingleRequest(ring, loads, value: element) != 2
        #expect(element - failed == 64)
    }

    /// A ring smaller than two pairs of lines' worth never slips: its producer could never get far enough ahead.
    @Test func aSmallRingNeverSlips() {
        let (ring, loads) = Self.ring(Int.self, capacity: 16)
        for element in 0..<100 {
            #expect(Self.tailLoadsOfASingleRequest(ring, loads, value: element) == 1)
        }
    }

    /// Elements that fill a pair of cache lines each never share a line, so there is nothing to slip from.
    @Test func elementsOfAPairOfLinesNeverSlip() {
        struct Wide: BitwiseCopyable {
            var words:
                (
                    UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                    UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
                )
        }
        let (ring, loads) = Self.ring(Wide.self, capacity: 8)
        let wide = Wide(words: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
        for _ in 0..<100 {
            #expect(ring.tryPop() == nil)
            #expect(ring.tryPush(wide))
            #expect(ring.tryPop()?.words.15 == 16)
        }
        #expect(loads.count == 200)
    }

    /// `popSpinning` slips by the same rule as `tryPop`: here the element arrives while it spins on the empty
    /// ring, alone, so the slip fails and the next element is read without one.
    @Test func popSpinningSlipsByTheSameRule() {
        let (ring, loads) = Self.ring(Int.self)
        defer { loads.onTailLoad = nil }  // the hook holds the ring, which holds the hook
        loads.onTailLoad = { load in
            if load == 2 { #expect(ring.tryPush(7)) }  // the spin's first look
        }
        #expect(ring.popSpinning() == 7)
        #expect(loads.count == 3)
        #expect(ring.tryPush(8))
        #expect(ring.popSpinning() == 8)
        #expect(loads.count == 4)
    }

    // MARK: The spinning producer

    /// A ring filled to capacity, then with `freed` elements popped. No `head` load counted yet: the fill never
    /// reached the producer's limit.
    private static func fullRing(capacity: Int = 1024, freed: Int, startIndex: UInt = 0) -> (
        SPSCRing<Int, CountingAtomics>, IndexLoads
    ) {
        let (ring, loads) = Self.ring(Int.self, capacity: capacity, startIndex: startIndex)
        for value in 0..<capacity { #expect(ring.tryPush(value)) }
        for value in 0..<freed { #expect(ring.tryPop() == value) }
        #expect(loads.headCount == 0)
        return (ring, loads)
    }

    /// A producer waiting on a full ring whose consumer frees one slot, then keeps reading while the producer
    /// slips: the producer writes on the slip's fresh `head`, which covers everything freed meanwhile, so the next
    /// pair of lines' worth of pushes loads `head` no more.
    @Test func aSpinningProducerSlipsWhenTheConsumerFreesOneSlot() {
        let distance = 128 / MemoryLayout<Int>.stride
        let (ring, loads) = Self.fullRing(freed: 0)
        defer { loads.onHeadLoad = nil }  // the hook holds the ring, which holds the hook
        var popped = 0
        loads.onHeadLoad = { load in
            let count = load == 1 ? 1 : load == 2 ? distance : 0  // the first look, then the slip's
            for _ in 0..<count {
                #expect(ring.tryPop() == popped)
                popped += 1
            }
        }
        ring.pushSpinning(1024)
        #expect(loads.headCount == 2, "the look that found one slot free, and the slip's")
        for value in 1025..<(1024 + 1 + distance) { ring.pushSpinning(value) }
        #expect(loads.headCount == 2, "\(distance) more pushes on the slip's head")
        loads.onHeadLoad = nil
        #expect(!ring.tryPush(0), "full again")
    }

    /// A producer at a full ring whose consumer frees one slot, at the producer's first look or while it spins, and
    /// then stops: the producer slips, then writes (the slip never waits for space), one look at `head` more than it
    /// took to find the slot. Across the indices' wrap-around too.
    @Test(arguments: [(1, 0), (2, 0), (2, UInt.max - 1000)] as [(Int, UInt)])
    func aProducerSlipsWhenOneSlotIsFreedAndNeverWaitsForMore(freedAtLoad: Int, startIndex: UInt) {
        let (ring, loads) = Self.fullRing(freed: 0, startIndex: startIndex)
        defer { loads.onHeadLoad = nil }  // the hook holds the ring, which holds the hook
        loads.onHeadLoad = { load in
            if load == freedAtLoad { #expect(ring.tryPop() == 0) }
        }
        ring.pushSpinning(1024)
        #expect(loads.headCount == freedAtLoad + 1)
        loads.onHeadLoad = nil
        #expect(!ring.tryPush(0))
        for expected in 1...1024 { #expect(ring.tryPop() == expected) }
    }

    /// A consumer that freed a pair of lines' worth or more, a non-spinning push, and a ring too small to slip:
    /// one look at `head`, no slip.
    @Test func theProducerSlipsOnlyWhenSpinningOnAFullRingThatCanSlip() {
        let distance = 128 / MemoryLayout<Int>.stride
        let (freedEnough, enoughLoads) = Self.fullRing(freed: distance)
        freedEnough.pushSpinning(1024)
        #expect(enoughLoads.headCount == 1)

        let (tried, triedLoads) = Self.fullRing(freed: 1)
        #expect(tried.tryPush(1024))
        #expect(triedLoads.headCount == 1)

        let (small, smallLoads) = Self.fullRing(capacity: 16, freed: 1)
        small.pushSpinning(16)
        #expect(smallLoads.headCount == 1)
    }
}
