import Messaging

#if canImport(Glibc)
    import Glibc
#endif

/// The measurements of the whole message path (``MessageBus``): the wakeup of a sleeping consumer, and what a
/// producer pays while the consumer is awake.
extension RingBenchmark {
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
}
