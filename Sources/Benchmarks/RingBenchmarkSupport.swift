import DequeModule
import Messaging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension RingBenchmark {
    /// What the throughput and round-trip loops need from a queue: its capacity and each thread's end of it.
    protocol Queue: AnyObject, Sendable {
        associatedtype Pusher: QueuePusher
        associatedtype Popper: QueuePopper
        /// How many values fit at once.
        var capacity: Int { get }
        /// What the producer thread keeps in a local for its loop (the queue itself, or the ring's producer end).
        var producer: Pusher { get }
        /// What the consumer thread keeps in a local for its loop.
        var consumer: Popper { get }
    }

    /// rigtorp's `try_push` and `push` (which spins while full).
    protocol QueuePusher {
        func tryPush(_ value: Int) -> Bool
        func pushSpinning(_ value: Int)
    }

    /// rigtorp's `front` + `pop`, and `while (!front()) {}`.
    protocol QueuePopper {
        func tryPop() -> Int?
        func popSpinning() -> Int
    }

    /// Baseline (a): what a Swift developer would write first, a `Deque` behind a `Mutex`, bounded to the same
    /// capacity so "full" means the same thing, and waited on the same way (spinning, as rigtorp's benchmark does).
    final class MutexDeque: Queue, QueuePusher, QueuePopper {
        private let storage: Mutex<Deque<Int>>
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            storage = Mutex(Deque(minimumCapacity: min(capacity, 1 << 20)))
        }

        func tryPush(_ value: Int) -> Bool {
            storage.withLock { deque in
                if deque.count >= capacity { return false }
                deque.append(value)
                return true
            }
        }

        func tryPop() -> Int? { storage.withLock { $0.popFirst() } }

        func pushSpinning(_ value: Int) {
            while !tryPush(value) {}
        }

        func popSpinning() -> Int {
            var value = tryPop()
            while value == nil { value = tryPop() }
            return value!
        }

        var producer: MutexDeque { self }
        var consumer: MutexDeque { self }
    }

    /// A log-linear latency histogram: exact below 16 ns, then 16 buckets per power of two (≤ 6.25 % error), a few
    /// KiB in all. HdrHistogram's idea without the dependency.
    struct Histogram {
        private var counts = [Int](repeating: 0, count: 16 + 60 * 16)
        private(set) var count = 0

        mutating func record(_ nanoseconds: UInt64) {
            counts[Self.bucket(of: nanoseconds)] += 1
            count += 1
        }

        static func bucket(of value: UInt64) -> Int {
            if value < 16 { return Int(value) }
            let magnitude = UInt64.bitWidth - 1 - value.leadingZeroBitCount  // ≥ 4
            let sub = Int(value >> UInt64(magnitude - 4)) - 16
            return 16 + (magnitude - 4) * 16 + sub
        }

        /// The lower bound of a bucket (what a value in it is reported as).
        static func lowerBound(of bucket: Int) -> Double {
            if bucket < 16 { return Double(bucket) }
            let magnitude = (bucket - 16) / 16 + 4
            let sub = (bucket - 16) % 16
            return Double((16 + sub) << (magnitude - 4))
        }

        /// The `p`-th percentile (0…100), in nanoseconds.
        func percentile(_ p: Double) -> Double {
            guard count > 0 else { return .nan }
            let rank = max(1, Int((p / 100 * Double(count)).rounded(.up)))
            var seen = 0
            for (bucket, bucketCount) in counts.enumerated() {
                seen += bucketCount
                if seen >= rank { return Self.lowerBound(of: bucket) }
            }
            return .nan
        }
    }

    /// A joinable POSIX thread, optionally pinned to one CPU (rigtorp's `pinThread`).
    final class PinnedThread {
        private final class Body {
            let run: () -> Void
            init(_ run: @escaping () -> Void) { self.run = run }
        }
        private var thread = pthread_t()

        init(cpu: Int?, _ body: @escaping () -> Void) {
            let context = Unmanaged.passRetained(
                Body {
                    if let cpu { PinnedThread.pinCurrentThread(to: cpu) }
                    body()
                }
            ).toOpaque()
            let result = pthread_create(
                &thread, nil,
                { context in
                    Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
                    return nil
                }, context)
            precondition(result == 0, "pthread_create: \(result)")
        }

        func join() { pthread_join(thread, nil) }

        static func pinCurrentThread(to cpu: Int) {
            do { try CPUSplit.pinCurrentThread(to: cpu) } catch { fatalError("\(error)") }
        }
    }
}

extension SPSCRing: RingBenchmark.Queue where Element == Int, Atomics == HardwareRingAtomics {}
extension SPSCRing.Producer: RingBenchmark.QueuePusher where Element == Int, Atomics == HardwareRingAtomics {}
extension SPSCRing.Consumer: RingBenchmark.QueuePopper where Element == Int, Atomics == HardwareRingAtomics {}

extension RingBenchmark {
    /// Hands completion from async code back to a benchmark thread.
    final class CompletionSignal: Sendable {
        private let state = Mutex(false)

        func signal() { state.withLock { $0 = true } }

        /// Waits by polling every 50 µs: benchmark threads must not block inside the cooperative pool's own threads.
        func wait() {
            while !state.withLock({ $0 }) { usleep(50) }
        }
    }
}
