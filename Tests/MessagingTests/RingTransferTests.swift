import Foundation
import Testing

@testable import Messaging

/// Runs `body` on a new thread; the returned closure waits for it to finish.
func startThread(_ body: @escaping @Sendable () -> Void) -> () -> Void {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.start()
    return { done.wait() }
}

/// Counts what the consumer saw against what it expected, on the consumer thread; read after joining it.
private final class TransferLog: @unchecked Sendable {
    var next = 0
    var outOfOrder = 0
    var firstMismatch: (expected: Int, got: Int)?

    func receive(_ value: Int) {
        if value != next {
            outOfOrder += 1
            if firstMismatch == nil { firstMismatch = (next, value) }
            next = value  // resynchronise so one fault is not counted a million times
        }
        next += 1
    }
}

@Suite("SPSC ring: capacity, order, loss, duplication, wrap-around")
struct RingTransferTests {
    static let items = 1_000_000

    /// Capacity rounds up to a power of two and every slot is usable (no slack slot): 3 holds 4.
    @Test(arguments: [(1, 1), (2, 2), (3, 4), (8, 8), (1000, 1024)])
    func capacityRoundsUpToAPowerOfTwo(requested: Int, actual: Int) {
        let ring = SPSCRing<Int, HardwareRingAtomics>(capacity: requested)
        #expect(ring.capacity == actual)
        for value in 0..<actual { #expect(ring.tryPush(value)) }
        #expect(!ring.tryPush(-1))
        for value in 0..<actual { #expect(ring.tryPop() == value) }
        #expect(ring.tryPop() == nil)
    }

    /// 10^6 items from one thread to another, one at a time: every value arrives once, in order.
    @Test(arguments: [1, 2, 3, 8])
    func singleElementTransfer(capacity: Int) {
        let ring = SPSCRing<Int, HardwareRingAtomics>(capacity: capacity)
        let log = TransferLog()
        let join = startThread {
            var backoff = Backoff()
            while log.next < Self.items {
                if let value = ring.tryPop() {
                    log.receive(value)
                    backoff.reset()
                } else {
                    backoff.wait()
                }
            }
        }
        var backoff = Backoff()
        for value in 0..<Self.items {
            while !ring.tryPush(value) { backoff.wait() }
            backoff.reset()
        }
        join()
        #expect(log.outOfOrder == 0, "first mismatch: \(String(describing: log.firstMismatch))")
        #expect(log.next == Self.items)
        #expect(ring.tryPop() == nil)
        let statistics = ring.statistics
        #expect(statistics.enqueued == Self.items && statistics.drained == Self.items)
        #expect(statistics.maxDepth >= 1 && statistics.maxDepth <= ring.capacity)
    }

    /// The same with batch push and batch drain, batches of varying size so they straddle the wrap of the slots.
    @Test(arguments: [1, 2, 3, 8])
    func batchTransfer(capacity: Int) {
        let ring = SPSCRing<Int, HardwareRingAtomics>(capacity: capacity)
        let log = TransferLog()
        let join = startThread {
            var backoff = Backoff()
            while log.next < Self.items {
                if ring.drain(log.receive) > 0 { backoff.reset() } else { backoff.wait() }
            }
        }
        var batch = [Int](repeating: 0, count: 7)
        var next = 0
        var backoff = Backoff()
        while next < Self.items {
            let size = min(1 + next % 7, Self.items - next)
            for offset in 0..<size { batch[offset] = next + offset }
            let pushed = batch.withUnsafeBufferPointer {
                ring.push(contentsOf: UnsafeBufferPointer(rebasing: $0[..<size]))
            }
            next += pushed
            if pushed == 0 { backoff.wait() } else { backoff.reset() }
        }
        join()
        #expect(log.outOfOrder == 0, "first mismatch: \(String(describing: log.firstMismatch))")
        #expect(log.next == Self.items)
    }

    /// The ends a loop keeps in a local (`ring.producer`, `ring.consumer`) and the spinning push and pop: 10^5
    /// items from one thread to another, every value once and in order, also across the `UInt` wrap-around.
    @Test(arguments: [1, 2, 3, 8, 1024])
    func spinningTransferThroughTheEnds(capacity: Int) {
        let items = 100_000
        let ring = SPSCRing<Int, HardwareRingAtomics>(capacity: capacity, startIndex: UInt.max - 100)
        let log = TransferLog()
        let join = startThread {
            let consumer = ring.consumer
            while log.next < items {
                // Alternate the spinning pop with the non-blocking one, so both meet an empty ring.
                if log.next % 2 == 0 {
                    log.receive(consumer.popSpinning())
                } else if let value = consumer.tryPop() {
                    log.receive(value)
                }
            }
        }
        let producer = ring.producer
        for value in 0..<items {
            if value % 3 == 0 {
                producer.pushSpinning(value)
            } else {
                while !producer.tryPush(value) {}
            }
        }
        join()
        #expect(log.outOfOrder == 0, "first mismatch: \(String(describing: log.firstMismatch))")
        #expect(log.next == items)
        #expect(ring.tryPop() == nil)
        #expect(ring.statistics.enqueued == items && ring.statistics.drained == items)
        #expect(ring.statistics.maxDepth >= 1 && ring.statistics.maxDepth <= ring.capacity)
    }

    /// The producer's cached limit (`head + capacity`) after the consumer frees slots: a full ring refuses, one
    /// pop makes room for exactly one push, a batch is cut to what was freed.
    @Test(arguments: [1, 2, 4])
    func fullUntilTheConsumerFreesSlots(capacity: Int) {
        let ring = SPSCRing<Int, HardwareRingAtomics>(capacity: capacity, startIndex: UInt.max - 1)
        for value in 0..<capacity { #expect(ring.tryPush(value)) }
        #expect(!ring.tryPush(-1))
        #expect(ring.tryPop() == 0)
        #expect(ring.tryPush(capacity))
        #expect(!ring.tryPush(-1))
        #expect(ring.drain(maxCount: 1) { _ in } == 1)
        let values = [100, 101]
        #expect(values.withUnsafeBufferPointer { ring.push(contentsOf: $0) } == 1)
        #expect(!ring.tryPush(-1))
    }

    /// Indices start just below `UInt.max`, so they overflow mid-test: fill level, full and empty must not notice.
    @Test(arguments: [1, 2, 3, 8])
    func indicesWrapAroundUIntMax(capacity: Int) {
        let ring = SPSCRing<Int, HardwareRingAtomics>(capacity: capacity, startIndex: UInt.max - 5)
        var expected = 0
        var next = 0
        for round in 0..<20 {
            // Fill completely, then drain a varying amount, so every slot and fill level is seen across the wrap.
            while ring.tryPush(next) { next += 1 }
            #expect(next - expected == ring.capacity)
            let batch = round % 3 == 0 ? Int.max : 1 + round % ring.capacity
            ring.drain(maxCount: batch) { value in
                #expect(value == expected)
                expected += 1
            }
        }
        while let value = ring.tryPop() {
            #expect(value == expected)
            expected += 1
        }
        #expect(expected == next)
        #expect(ring.statistics.enqueued == next && ring.statistics.drained == next)
    }

    /// A batch that does not fit is cut to the free space, never dropped silently.
    @Test func batchPushIsCutToFreeSpace() {
        let ring = SPSCRing<Int, HardwareRingAtomics>(capacity: 4)
        #expect(ring.tryPush(100))
        let values = [1, 2, 3, 4, 5]
        #expect(values.withUnsafeBufferPointer { ring.push(contentsOf: $0) } == 3)
        var drained: [Int] = []
        #expect(ring.drain(maxCount: 2) { drained.append($0) } == 2)
        #expect(ring.drain { drained.append($0) } == 2)
        #expect(drained == [100, 1, 2, 3])
        #expect(ring.statistics.maxDepth == 4)
    }
}
