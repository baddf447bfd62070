import Messaging

#if canImport(Glibc)
    import Glibc
#endif

/// `multiscreen bench ring`: the message ring against the queues a Swift developer would reach for instead,
/// measured the way rigtorp/SPSCQueue's benchmark measures (so its numbers can sit next to ours):
///
/// - **throughput**: one thread pushes `items` consecutive `Int`s, another pops them and checks each, through a
///   queue of capacity `items` (never full) and again of capacity 1024 (wraps, and the producer meets "full");
///   ops/ms = items / elapsed, timed on the producer from the first push to the consumer's join;
/// - **round trip**: two queues and an echo thread; ns per round trip = elapsed / iterations, plus p50/p99/p99.9
///   from a second, per-iteration-timed pass (timing every trip costs two clock reads, so the mean comes from the
///   untimed pass as rigtorp's does);
/// - **wakeup**: enqueue → dequeue on a display-thread-like consumer that sleeps in `poll` on the bus's eventfd;
/// - **busy**: eventfd writes per message on the full message path while the consumer is awake (must be 0).
///
/// Every queue is pre-faulted before it is timed (``prefault(_:count:)``): a fresh 128 MiB ring would otherwise
/// spend its first pass in ~3·10^4 page faults, which measures the kernel, not the queue.
///
/// Every measurement is repeated `runs` times and the median is reported; ratios compare medians. ``runPass(_:_:)``
/// runs one measurement of the ring alone, so a script can alternate it with another binary second by second.
public enum RingBenchmark {
    public struct Options: Sendable {
        /// Items per throughput run (rigtorp: 10^7).
        public var items = 10_000_000
        /// Round trips per run (rigtorp: 10^7; fewer by default, the histogram pass doubles the time).
        public var roundTrips = 1_000_000
        /// `AsyncStream` is one to two orders of magnitude slower; it runs this fraction of the items/round trips
        /// so a run stays in seconds. Rates (ops/ms, ns per trip) are per item and stay comparable.
        public var asyncStreamDivisor = 10
        public var runs = 5
        /// Consumer/echo thread on the first, producer on the second (rigtorp's `cpu1 cpu2`).
        public var cpus: [Int]? = nil
        public var wakeupSamples = 2_000
        public var busyMessages = 1_000_000

        public init() {}
    }

    /// The wrapping throughput run's capacity and the round trip's (rigtorp's benchmark uses 10^7 for both).
    static let smallCapacity = 1024
    static let ring = "spsc-ring"
    static let mutexDeque = "mutex-deque"
    static let asyncStream = "async-stream"

    /// Runs everything; `progress` gets each result as soon as it exists (benchmarks take a while).
    public static func run(_ options: Options, progress: (Result) -> Void = { _ in }) -> [Result] {
        var results: [Result] = []
        func report(_ result: Result) {
            results.append(result)
            progress(result)
        }
        if let cpus = options.cpus, cpus.count > 1 { PinnedThread.pinCurrentThread(to: cpus[1]) }
        let consumerCPU = options.cpus?.first

        for capacity in [options.items, smallCapacity] {
            let ringRuns = repeated(options.runs) {
                throughput(SPSCRing<Int, HardwareRingAtomics>(capacity: capacity), options.items, consumerCPU)
            }
            let mutexRuns = repeated(options.runs) {
                throughput(MutexDeque(capacity: capacity), options.items, consumerCPU)
            }
            let details: [String: Double] = ["capacity": Double(capacity), "items": Double(options.items)]
            let ringMedian = SampleStatistics.median(ringRuns)
            report(summary("ring.throughput", ring, ringRuns, "ops/ms", details))
            report(summary("ring.throughput", mutexDeque, mutexRuns, "ops/ms", details))
            report(ratio("ring.throughput", mutexDeque, ringMedian / SampleStatistics.median(mutexRuns), details))
            if capacity == options.items {
                // AsyncStream has no lossless bound (its bounded policies drop), so it only runs unbounded.
                let asyncItems = options.items / options.asyncStreamDivisor
                let asyncRuns = repeated(options.runs) { asyncStreamThroughput(asyncItems) }
                var asyncDetails = details
                asyncDetails["items"] = Double(asyncItems)
                asyncDetails["capacity"] = nil
                report(summary("ring.throughput", asyncStream, asyncRuns, "ops/ms", asyncDetails))
                report(ratio("ring.throughput", asyncStream, ringMedian / SampleStatistics.median(asyncRuns), details))
            }
        }

        let tripDetails: [String: Double] = ["iterations": Double(options.roundTrips), "capacity": 1024]
        let ringTrips = repeated(options.runs) {
            roundTrip(
                SPSCRing<Int, HardwareRingAtomics>(capacity: 1024), SPSCRing<Int, HardwareRingAtomics>(capacity: 1024),
                options.roundTrips, consumerCPU, histogram: nil)
        }
        let mutexTrips = repeated(options.runs) {
            roundTrip(
                MutexDeque(capacity: 1024), MutexDeque(capacity: 1024), options.roundTrips, consumerCPU, histogram: nil)
        }
        let asyncTrips = repeated(options.runs) {
            asyncStreamRoundTrip(options.roundTrips / options.asyncStreamDivisor)
        }
        report(summary("ring.round-trip", ring, ringTrips, "ns", tripDetails))
        report(summary("ring.round-trip", mutexDeque, mutexTrips, "ns", tripDetails))
        var asyncTripDetails = tripDetails
        asyncTripDetails["iterations"] = Double(options.roundTrips / options.asyncStreamDivisor)
        report(summary("ring.round-trip", asyncStream, asyncTrips, "ns", asyncTripDetails))
        let ringTripMedian = SampleStatistics.median(ringTrips)
        report(ratio("ring.round-trip", mutexDeque, SampleStatistics.median(mutexTrips) / ringTripMedian, tripDetails))
        report(ratio("ring.round-trip", asyncStream, SampleStatistics.median(asyncTrips) / ringTripMedian, tripDetails))

        func percentiles<Q: Queue>(_ subject: String, _ makeQueue: () -> Q) {
            var histogram = Histogram()
            _ = withUnsafeMutablePointer(to: &histogram) { pointer in
                roundTrip(makeQueue(), makeQueue(), options.roundTrips, consumerCPU, histogram: pointer)
            }
            for (metric, p) in [("p50", 50.0), ("p99", 99.0), ("p99.9", 99.9)] {
                report(
                    Result(
                        benchmark: "ring.round-trip", subject: subject, metric: metric,
                        value: histogram.percentile(p), unit: "ns", samples: histogram.count, details: tripDetails))
            }
        }
        percentiles(ring) { SPSCRing<Int, HardwareRingAtomics>(capacity: 1024) }
        percentiles(mutexDeque) { MutexDeque(capacity: 1024) }

        let wakeup = wakeupLatency(samples: options.wakeupSamples, consumerCPU: consumerCPU)
        for (metric, p) in [("p50", 50.0), ("p99", 99.0)] {
            report(
                Result(
                    benchmark: "ring.wakeup", subject: "message-bus", metric: metric,
                    value: wakeup.latency.percentile(p),
                    unit: "ns", samples: wakeup.latency.count, details: ["eventfd-writes": Double(wakeup.writes)]))
        }

        let busy = busyConsumer(messages: options.busyMessages, consumerCPU: consumerCPU)
        report(
            Result(
                benchmark: "ring.busy", subject: "message-bus", metric: "eventfd-writes-per-message",
                value: Double(busy.writes) / Double(options.busyMessages), unit: "syscalls",
                samples: options.busyMessages,
                details: ["eventfd-writes": Double(busy.writes)]))
        report(
            Result(
                benchmark: "ring.busy", subject: "message-bus", metric: "throughput", value: busy.opsPerMillisecond,
                unit: "ops/ms", samples: options.busyMessages))
        return results
    }

    /// One measurement of the ring alone, for back-to-back runs against another implementation.
    public enum Pass: String, CaseIterable, Sendable {
        /// `items` through capacity 1024: the ring wraps and the producer meets "full".
        case throughput1024 = "throughput-1024"
        /// `items` through capacity `items` (rounded up to a power of two): never full.
        case throughputLarge = "throughput-large"
        /// `roundTrips` round trips through two rings of capacity 1024 and an echo thread.
        case roundTrip = "round-trip"
    }

    /// Runs `pass` `options.runs` times on the ring only (no baselines), with the threads pinned as `options.cpus`
    /// says and the ring pre-faulted; one result, the median, with every run in its details.
    public static func runPass(_ pass: Pass, _ options: Options) -> Result {
        if let cpus = options.cpus, cpus.count > 1 { PinnedThread.pinCurrentThread(to: cpus[1]) }
        let consumerCPU = options.cpus?.first
        typealias Ring = SPSCRing<Int, HardwareRingAtomics>
        switch pass {
        case .throughput1024, .throughputLarge:
            let capacity = pass == .throughputLarge ? options.items : smallCapacity
            let runs = repeated(options.runs) { throughput(Ring(capacity: capacity), options.items, consumerCPU) }
            return summary(
                "ring.throughput", ring, runs, "ops/ms",
                ["capacity": Double(capacity), "items": Double(options.items)])
        case .roundTrip:
            let runs = repeated(options.runs) {
                roundTrip(
                    Ring(capacity: smallCapacity), Ring(capacity: smallCapacity), options.roundTrips,
                    consumerCPU, histogram: nil)
            }
            return summary(
                "ring.round-trip", ring, runs, "ns",
                ["capacity": Double(smallCapacity), "iterations": Double(options.roundTrips)])
        }
    }
}
