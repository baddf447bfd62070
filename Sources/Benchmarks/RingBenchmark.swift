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

    /// One reported number.
    public struct Result: Sendable {
        public var benchmark: String
        public var subject: String
        public var metric: String
        public var value: Double
        public var unit: String
        public var samples: Int
        /// Extra key/values (capacity, items, each run's value).
        public var details: [String: Double] = [:]

        /// `ring.throughput subject=spsc-ring metric=median value=... unit=ops/ms samples=5 capacity=1024`
        public var line: String {
            let extra = details.keys.sorted().map { "\($0)=\(Self.format(details[$0]!))" }.joined(separator: " ")
            return "\(benchmark) subject=\(subject) metric=\(metric) value=\(Self.format(value)) unit=\(unit) "
                + "samples=\(samples)" + (extra.isEmpty ? "" : " " + extra)
        }

        public var json: JSONValue {
            var object: [String: JSONValue] = [
                "benchmark": .string(benchmark), "subject": .string(subject), "metric": .string(metric),
                "value": value.isFinite ? .number(value) : .null, "unit": .string(unit), "samples": .integer(samples),
            ]
            for (key, value) in details { object[key] = .number(value) }
            return .object(object)
        }

        static func format(_ value: Double) -> String {
            guard value.isFinite else { return "nan" }
            if value == value.rounded() && abs(value) < 1e15 { return String(Int(value)) }
            return String((value * 1000).rounded() / 1000)
        }
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

    // MARK: Measurements

    /// Pushes and pops `count` values on the calling thread (in chunks of what fits), so every slot, or every page
    /// of a growable buffer, has been written once before the clock starts. Must run before the queue is shared.
    /// `count` is the whole capacity, not the items a run will move: the timed run starts where this one left the
    /// indices, so it reaches every slot (10^7 items through the 2^24 slots of the large ring land on 6.8·10^6
    /// slots beyond the first 10^7).
    static func prefault<Q: Queue>(_ queue: Q, count: Int) {
        let producer = queue.producer
        let consumer = queue.consumer
        var pushed = 0
        while pushed < count {
            var chunk = 0
            while pushed < count && producer.tryPush(pushed) {
                pushed += 1
                chunk += 1
            }
            precondition(chunk > 0, "prefault: the queue accepts nothing while empty")
            while consumer.tryPop() != nil {}
        }
    }

    /// rigtorp's throughput loop: the consumer checks every value, the producer spins on full. Each thread takes
    /// its end of the queue once, before its loop (for the ring: its pointers in registers, see
    /// ``SPSCRing/Producer``). The producer waits with the queue's own spin, as rigtorp's `push` does; the consumer
    /// polls `tryPop`, as rigtorp's `while (!front())` does, so the two loops have the same shape.
    static func throughput<Q: Queue>(_ queue: Q, _ items: Int, _ consumerCPU: Int?) -> Double {
        prefault(queue, count: queue.capacity)
        let consumer = PinnedThread(cpu: consumerCPU) {
            let popper = queue.consumer
            for expected in 0..<items {
                var optional = popper.tryPop()
                while optional == nil { optional = popper.tryPop() }
                let value = optional!
                if value != expected { fatalError("expected \(expected), got \(value)") }
            }
        }
        let pusher = queue.producer
        let start = MonotonicClock.nanoseconds()
        for value in 0..<items { pusher.pushSpinning(value) }
        consumer.join()
        let elapsed = MonotonicClock.nanoseconds() - start
        return Double(items) * 1_000_000 / Double(elapsed)
    }

    /// rigtorp's round-trip loop; with a histogram, each trip is also timed on its own.
    static func roundTrip<Q: Queue>(
        _ request: Q, _ reply: Q, _ iterations: Int, _ consumerCPU: Int?, histogram: UnsafeMutablePointer<Histogram>?
    ) -> Double {
        prefault(request, count: request.capacity)
        prefault(reply, count: reply.capacity)
        let echo = PinnedThread(cpu: consumerCPU) {
            let requests = request.consumer
            let replies = reply.producer
            for _ in 0..<iterations { replies.pushSpinning(requests.popSpinning()) }
        }
        let requests = request.producer
        let replies = reply.consumer
        let start = MonotonicClock.nanoseconds()
        if let histogram {
            for value in 0..<iterations {
                let sent = MonotonicClock.nanoseconds()
                requests.pushSpinning(value)
                _ = replies.popSpinning()
                histogram.pointee.record(MonotonicClock.nanoseconds() - sent)
            }
        } else {
            trips(requests, replies, iterations)
        }
        let elapsed = MonotonicClock.nanoseconds() - start
        echo.join()
        return Double(elapsed) / Double(iterations)
    }

    /// The untimed round trips, in a function of their own so that nothing else competes for registers with the
    /// two queue ends (the histogram pass keeps the ring pointers on the stack otherwise).
    @inline(never)
    static func trips<P: QueuePusher, C: QueuePopper>(_ requests: P, _ replies: C, _ iterations: Int) {
        for value in 0..<iterations {
            requests.pushSpinning(value)
            _ = replies.popSpinning()
        }
    }

    /// Baseline (b): `AsyncStream`, unbounded; the producer yields from a thread, a task consumes and checks.
    static func asyncStreamThroughput(_ items: Int) -> Double {
        let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .unbounded)
        let done = CompletionSignal()
        Task.detached {
            var expected = 0
            for await value in stream {
                if value != expected { fatalError("expected \(expected), got \(value)") }
                expected += 1
            }
            done.signal()
        }
        let start = MonotonicClock.nanoseconds()
        for value in 0..<items { continuation.yield(value) }
        continuation.finish()
        done.wait()
        return Double(items) * 1_000_000 / Double(MonotonicClock.nanoseconds() - start)
    }

    /// Two `AsyncStream`s and an echo task; the driver is a task too (awaiting needs one).
    static func asyncStreamRoundTrip(_ iterations: Int) -> Double {
        let (requests, requestContinuation) = AsyncStream<Int>.makeStream()
        let (replies, replyContinuation) = AsyncStream<Int>.makeStream()
        let done = CompletionSignal()
        let elapsed = ElapsedBox()
        Task.detached {
            for await value in requests { replyContinuation.yield(value) }
            replyContinuation.finish()
        }
        Task.detached {
            var iterator = replies.makeAsyncIterator()
            let start = MonotonicClock.nanoseconds()
            for value in 0..<iterations {
                requestContinuation.yield(value)
                _ = await iterator.next()
            }
            elapsed.nanoseconds = MonotonicClock.nanoseconds() - start
            requestContinuation.finish()
            done.signal()
        }
        done.wait()
        return Double(elapsed.nanoseconds) / Double(iterations)
    }

    private final class ElapsedBox: @unchecked Sendable {
        var nanoseconds: UInt64 = 0
    }

    /// A producer sends one message every 200 µs to a consumer sleeping in poll: enqueue → dequeue latency.
    static func wakeupLatency(samples: Int, consumerCPU: Int?) -> (latency: Histogram, writes: Int) {
        let bus = try! MessageBus()
        let producer = bus.makeProducer()
        let latencies = UnsafeMutablePointer<Histogram>.allocate(capacity: 1)
        latencies.initialize(to: Histogram())
        defer { latencies.deallocate() }
        nonisolated(unsafe) let output = latencies
        let consumer = bus.makeConsumer()
        nonisolated(unsafe) let display = consumer
        let thread = PinnedThread(cpu: consumerCPU) {
            var received = 0
            while received < samples {
                received += display.drain { message in
                    output.pointee.record(MonotonicClock.nanoseconds() - message.enqueuedAt)
                }
                if received < samples { display.waitForMessages(timeoutMilliseconds: 1_000) }
            }
        }
        for index in 0..<samples {
            usleep(200)
            precondition(producer.trySend(.send(text: "\(index)", screen: nil)) == .enqueued)
        }
        thread.join()
        return (latencies.pointee, bus.wakeupsSent)
    }

    /// The full message path with a consumer that never sleeps: how many eventfd writes do producers pay?
    static func busyConsumer(messages: Int, consumerCPU: Int?) -> (writes: Int, opsPerMillisecond: Double) {
        let bus = try! MessageBus()
        let producer = bus.makeProducer()
        nonisolated(unsafe) let consumer = bus.makeConsumer()
        let thread = PinnedThread(cpu: consumerCPU) {
            var received = 0
            while received < messages { received += consumer.drain { _ in } }
        }
        let start = MonotonicClock.nanoseconds()
        let message = Message.send(text: "x", screen: nil)
        for _ in 0..<messages {
            while producer.trySend(message) != .enqueued {}
        }
        thread.join()
        let elapsed = MonotonicClock.nanoseconds() - start
        return (bus.wakeupsSent, Double(messages) * 1_000_000 / Double(elapsed))
    }

    // MARK: Summaries

    static func repeated(_ runs: Int, _ measure: () -> Double) -> [Double] { (0..<runs).map { _ in measure() } }

    static func summary(
        _ benchmark: String, _ subject: String, _ runs: [Double], _ unit: String, _ details: [String: Double]
    )
        -> Result
    {
        var details = details
        for (index, value) in runs.enumerated() { details["run\(index + 1)"] = value }
        return Result(
            benchmark: benchmark, subject: subject, metric: "median", value: SampleStatistics.median(runs), unit: unit,
            samples: runs.count, details: details)
    }

    /// How many times better the ring is than `baseline` (higher is better for the ring in both benchmarks).
    static func ratio(_ benchmark: String, _ baseline: String, _ value: Double, _ details: [String: Double]) -> Result {
        Result(
            benchmark: benchmark, subject: "\(ring)-vs-\(baseline)", metric: "ratio", value: value, unit: "x",
            samples: 1, details: details)
    }
}

extension RingBenchmark {
    /// `{"benchmark": "ring", "options": {...}, "results": [...]}`, compact.
    public static func json(_ results: [Result], options: Options) -> String {
        var settings: [String: JSONValue] = [
            "items": .integer(options.items), "round-trips": .integer(options.roundTrips),
            "runs": .integer(options.runs),
            "async-stream-divisor": .integer(options.asyncStreamDivisor),
        ]
        if let cpus = options.cpus { settings["cpus"] = .array(cpus.map { .integer($0) }) }
        return JSONValue.object([
            "benchmark": .string("ring"), "options": .object(settings), "results": .array(results.map(\.json)),
        ]).serialized
    }
}
