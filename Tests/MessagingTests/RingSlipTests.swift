import Atomics
import Testing

@testable import Messaging

/// Hardware atomics that count the consumer's loads of `tail` and can act as the producer in the middle of one:
/// `onTailLoad` runs before load number N returns, so a single-threaded test can add elements while the consumer
/// slips, as a streaming producer on another core would.
private final class TailLoads: @unchecked Sendable {
    var count = 0
    var onTailLoad: ((Int) -> Void)?
}

private struct CountingAtomics: RingIndexAtomics {
    let hardware: HardwareRingAtomics
    let loads: TailLoads

    func loadHead(ordering: AtomicLoadOrdering) -> UInt { hardware.loadHead(ordering: ordering) }
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

/// The polling consumer's temporal slipping (``SPSCRing/ConsumerEnd/slip(head:)``), observed through how often
/// the consumer loads `tail`: one load per refresh, a second when it slips.
@Suite("SPSC ring: a polling consumer slips behind a streaming producer and backs off from one that is not")
struct RingSlipTests {
    private static func ring<Element: BitwiseCopyable>(
        _: Element.Type, capacity: Int = 1024, startIndex: UInt = 0
    ) -> (SPSCRing<Element, CountingAtomics>, TailLoads) {
        let loads = TailLoads()
        let ring = SPSCRing<Element, CountingAtomics>(capacity: capacity, startIndex: startIndex) { head, tail in
            CountingAtomics(hardware: HardwareRingAtomics(head: head, tail: tail), loads: loads)
        }
        return (ring, loads)
    }

    /// Looks at the empty ring, then pushes one element and pops it, as a request/reply exchange does; returns
    /// how many times the consumer loaded `tail` to pop it (2 when it slipped).
    private static func tailLoadsOfASingleRequest(
        _ ring: SPSCRing<Int, CountingAtomics>, _ loads: TailLoads, value: Int
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
}
