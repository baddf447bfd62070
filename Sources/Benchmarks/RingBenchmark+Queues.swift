import Messaging

/// The measurements of the ring and the mutex-guarded deque, on two threads, rigtorp's way.
extension RingBenchmark {
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
}
