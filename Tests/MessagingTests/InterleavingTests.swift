import Testing

@testable import Messaging

/// What the two programs of one explored run observed, checked once both are done.
private final class Observations: @unchecked Sendable {
    var pushed: [Int] = []
    var received: [Int] = []
    var violations: [String] = []
}

/// Runs a producer and a consumer program under every interleaving and checks, for each run: what the consumer
/// received followed by what was left in the ring is exactly what the producer pushed successfully, in order; a
/// push reported full only when the ring was full and a pop found nothing only when it was empty; no slot access
/// raced. - Returns: (schedules explored, races found in total).
private func explore(
    capacity: Int, start: UInt, weakening: ExplorerMemory.Weakening = [],
    producer: @escaping @Sendable (SPSCRing<Int, ExplorerAtomics>, ExplorerMemory, Observations) -> Void,
    consumer: @escaping @Sendable (SPSCRing<Int, ExplorerAtomics>, ExplorerMemory, Observations) -> Void
) -> (schedules: Int, races: Int) {
    var races = 0
    let schedules = InterleavingExplorer.exploreAll { explorer in
        let memory = ExplorerMemory(explorer: explorer, capacity: capacity, weakening: weakening)
        let ring = SPSCRing<Int, ExplorerAtomics>(capacity: capacity, startIndex: start) { _, _ in
            memory.atomics(start: start)
        }
        let observations = Observations()
        return (
            producer: { producer(ring, memory, observations) },
            consumer: { consumer(ring, memory, observations) },
            check: {
                var rest: [Int] = []
                ring.drain { rest.append($0) }
                #expect(observations.received + rest == observations.pushed)
                #expect(observations.violations == [])
                races += memory.races.count
            }
        )
    }
    return (schedules, races)
}

private func pushEach(_ values: [Int])
    -> @Sendable (SPSCRing<Int, ExplorerAtomics>, ExplorerMemory, Observations) -> Void
{
    { ring, memory, observations in
        for value in values {
            if ring.tryPush(value) {
                observations.pushed.append(value)
            } else if memory.tail &- memory.head != UInt(ring.capacity) {
                observations.violations.append("push of \(value) refused with \(memory.tail &- memory.head) queued")
            }
        }
    }
}

private func popTimes(_ attempts: Int)
    -> @Sendable (SPSCRing<Int, ExplorerAtomics>, ExplorerMemory, Observations) -> Void
{
    { ring, memory, observations in
        for _ in 0..<attempts {
            if let value = ring.tryPop() {
                observations.received.append(value)
            } else if memory.tail != memory.head {
                observations.violations.append("pop found nothing with \(memory.tail &- memory.head) queued")
            }
        }
    }
}

@Suite("Interleaving explorer: every schedule of small push/pop programs")
struct InterleavingTests {
    /// The explorer enumerates every schedule, no more: one push against one pop has exactly six. Scheduling
    /// points are thread start, the producer's store of `tail`, the consumer's load of `tail` and, only if that
    /// load saw the element, the second load of its slip (the element is alone) and its store of `head`: 3
    /// schedules where the push lands before the consumer's load, 3 where it does not.
    @Test func onePushAgainstOnePopHasSixSchedules() {
        let result = explore(capacity: 2, start: 0, producer: pushEach([1]), consumer: popTimes(1))
        #expect(result.schedules == 6)
        #expect(result.races == 0)
    }

    @Test(arguments: [1, 2])
    func singlePushesAndPopsAcrossTheWrapAround(capacity: Int) {
        let result = explore(
            capacity: capacity, start: UInt.max - 1, producer: pushEach([1, 2, 3]), consumer: popTimes(3))
        #expect(result.races == 0)
        // Two threads with a handful of scheduling points each: dozens of schedules, not one.
        #expect(result.schedules > 20)
    }

    @Test(arguments: [1, 2, 4])
    func batchPushAndDrain(capacity: Int) {
        let result = explore(
            capacity: capacity, start: UInt.max - 2,
            producer: { ring, _, observations in
                for batch in [[1, 2, 3], [4, 5]] {
                    let count = batch.withUnsafeBufferPointer { ring.push(contentsOf: $0) }
                    observations.pushed += batch.prefix(count)
                }
            },
            consumer: { ring, _, observations in
                for _ in 0..<2 { ring.drain { observations.received.append($0) } }
            })
        #expect(result.races == 0)
        #expect(result.schedules > 5)
    }

    /// The explorer must be able to fail: publishing the tail with a relaxed store lets the consumer read a slot
    /// whose write it has no happens-before edge to.
    @Test func relaxedTailStoreIsCaught() {
        let result = explore(
            capacity: 2, start: 0, weakening: .relaxedTailStore, producer: pushEach([1, 2]), consumer: popTimes(2))
        #expect(result.races > 0)
    }

    /// And the other direction: a relaxed load of `head` lets the producer overwrite a slot the consumer read.
    @Test func relaxedHeadLoadIsCaught() {
        let result = explore(
            capacity: 1, start: 0, weakening: .relaxedHeadLoad, producer: pushEach([1, 2]), consumer: popTimes(1))
        #expect(result.races > 0)
    }
}
