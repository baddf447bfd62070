import Messaging

/// The measurements of baseline (b), `AsyncStream`: the queue a Swift developer would reach for first.
extension RingBenchmark {
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
}
