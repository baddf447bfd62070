// A ThreadSanitizer workout for the rings, run by scripts/tsan-stress.
//
//   ring-stress ring   [items]   the real SPSCRing (single and batch operations, capacities 1…1024) and the
//                                MessageBus (three producers, text slabs, the eventfd sleep protocol); exits 0
//   ring-stress canary [items]   the same ring over deliberately broken atomics (relaxed where release/acquire
//                                is needed); under TSAN with halt_on_error=1 this must die with a data race report
//   ring-stress instructions push-then-pop|batch-512 PAIRS
//                                single-threaded loops for scripts/ring-instructions (callgrind); see
//                                InstructionDriver.swift
//
// Both modes also check order and completeness themselves and exit 1 on a lost, duplicated or reordered item.
import Atomics
import Messaging

#if canImport(Glibc)
    import Glibc
#endif

/// The canary: publishes `tail` with a relaxed store and reads `head` with a relaxed load. On x86 it still works
/// (the hardware is TSO), which is exactly why it is a good test of the tool: only the memory model is broken.
struct RelaxedPublishAtomics: RingIndexAtomics {
    let head: UnsafeAtomic<UInt>
    let tail: UnsafeAtomic<UInt>

    init(head: UnsafeMutablePointer<UnsafeAtomic<UInt>.Storage>, tail: UnsafeMutablePointer<UnsafeAtomic<UInt>.Storage>)
    {
        self.head = UnsafeAtomic(at: head)
        self.tail = UnsafeAtomic(at: tail)
    }

    func loadHead(ordering: AtomicLoadOrdering) -> UInt { head.load(ordering: .relaxed) }
    func storeHead(_ value: UInt, ordering: AtomicStoreOrdering) { head.store(value, ordering: .relaxed) }
    func loadTail(ordering: AtomicLoadOrdering) -> UInt { tail.load(ordering: .relaxed) }
    func storeTail(_ value: UInt, ordering: AtomicStoreOrdering) { tail.store(value, ordering: .relaxed) }
}

/// A joinable POSIX thread running a closure (Foundation's Thread is not instrumented and not joinable).
final class JoinableThread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }
    private var thread = pthread_t()

    init(_ body: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { argument in
                let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
                box.body()
                return nil
            }, box)
        precondition(result == 0, "pthread_create failed: \(result)")
    }

    func join() { pthread_join(thread, nil) }
}

func fail(_ message: String) -> Never {
    print("ring-stress: \(message)")
    exit(1)
}

/// Moves `items` integers through `ring`, one at a time (through the ring and through its ends) and in batches,
/// and checks them.
func transfer<Atomics: RingIndexAtomics>(_ ring: SPSCRing<Int, Atomics>, items: Int) {
    let producer = JoinableThread {
        var backoff = Backoff(spins: 16, yields: 4, maximumSleepNanoseconds: 50_000)
        var next = 0
        var batch = [Int](repeating: 0, count: 5)
        let end = ring.producer
        while next < items {
            if next % 4 == 2 {
                if end.tryPush(next) {
                    next += 1
                    backoff.reset()
                } else {
                    backoff.wait()
                }
            } else if next % 2 == 0 {
                if ring.tryPush(next) {
                    next += 1
                    backoff.reset()
                } else {
                    backoff.wait()
                }
            } else {
                let size = min(batch.count, items - next)
                for offset in 0..<size { batch[offset] = next + offset }
                let pushed = batch.withUnsafeBufferPointer {
                    ring.push(contentsOf: UnsafeBufferPointer(rebasing: $0[..<size]))
                }
                next += pushed
                if pushed == 0 { backoff.wait() } else { backoff.reset() }
            }
        }
    }
    var expected = 0
    var backoff = Backoff(spins: 16, yields: 4, maximumSleepNanoseconds: 50_000)
    let end = ring.consumer
    while expected < items {
        var got = 0
        if expected % 5 == 1 {
            if let value = end.tryPop() {
                if value != expected { fail("expected \(expected), got \(value)") }
                expected += 1
                got = 1
            }
        } else if expected % 3 == 0 {
            if let value = ring.tryPop() {
                if value != expected { fail("expected \(expected), got \(value)") }
                expected += 1
                got = 1
            }
        } else {
            got = ring.drain { value in
                if value != expected { fail("expected \(expected), got \(value)") }
                expected += 1
            }
        }
        if got == 0 { backoff.wait() } else { backoff.reset() }
    }
    producer.join()
    if ring.tryPop() != nil { fail("an item was duplicated") }
}

/// Three producer threads through a MessageBus into this thread, which sleeps in poll whenever it runs dry.
func busTransfer(itemsPerProducer: Int) {
    let bus: MessageBus
    do { bus = try MessageBus() } catch { fail("\(error)") }
    let consumer = bus.makeConsumer()
    let threads = (0..<3).map { _ in
        let producer = bus.makeProducer(capacity: 16, textCapacity: 256 * 1024)
        return JoinableThread {
            for index in 0..<itemsPerProducer {
                let message = Message.send(text: "\(index)", screen: index % 3 == 0 ? "s" : nil)
                if producer.send(message, until: .max) != .enqueued { fail("send failed") }
                if index % 64 == 0 { usleep(50) }  // let the consumer fall asleep now and then
            }
            producer.close()
        }
    }
    var next: [Int: Int] = [:]
    var total = 0
    while total < 3 * itemsPerProducer {
        total += consumer.drain { received in
            let index = next[received.producerID, default: 0]
            if received.message != .send(text: "\(index)", screen: index % 3 == 0 ? "s" : nil) {
                fail("producer \(received.producerID): expected message \(index), got \(received.message)")
            }
            next[received.producerID] = index + 1
        }
        if total < 3 * itemsPerProducer && !consumer.waitForMessages(timeoutMilliseconds: 10_000) {
            fail("the consumer slept 10 s with \(3 * itemsPerProducer - total) messages missing: a lost wakeup")
        }
    }
    for thread in threads { thread.join() }
}

let arguments = CommandLine.arguments
let mode = arguments.count > 1 ? arguments[1] : "ring"
let items = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 200_000
switch mode {
case "ring":
    for capacity in [1, 2, 3, 8, 1024] {
        transfer(SPSCRing<Int, HardwareRingAtomics>(capacity: capacity), items: items)
    }
    busTransfer(itemsPerProducer: items / 10)
    print("ring-stress: ring OK (\(items) items per capacity, \(3 * (items / 10)) bus messages)")
case "canary":
    transfer(SPSCRing<Int, RelaxedPublishAtomics>(capacity: 8, makeAtomics: RelaxedPublishAtomics.init), items: items)
    print("ring-stress: canary ran to completion (expected under TSAN: a data race report instead)")
case "instructions":
    InstructionDriver.run(
        pattern: arguments.count > 2 ? arguments[2] : "", pairs: arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0)
default:
    fail("usage: ring-stress ring|canary [items] | instructions push-then-pop|batch-512 PAIRS")
}
