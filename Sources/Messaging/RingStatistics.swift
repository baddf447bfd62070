/// Counters of one ring, or their sum over a bus. "Nothing lost silently": `enqueued - drained` is what is still
/// in flight and every refused message is counted in `rejectedFull`.
public struct RingStatistics: Equatable, Sendable, CustomStringConvertible {
    /// Elements ever accepted.
    public var enqueued: Int
    /// Elements ever handed to the consumer.
    public var drained: Int
    /// Messages refused because the ring (or its text slab) was full. Plain ``SPSCRing``s leave it at 0: a failed
    /// `tryPush` in a spin loop is not a refusal, giving up is, and only the caller knows when it gives up.
    public var rejectedFull: Int
    /// The most elements the consumer ever found waiting at once: how much a burst coalesced.
    public var maxDepth: Int

    public init(enqueued: Int = 0, drained: Int = 0, rejectedFull: Int = 0, maxDepth: Int = 0) {
        self.enqueued = enqueued
        self.drained = drained
        self.rejectedFull = rejectedFull
        self.maxDepth = maxDepth
    }

    public var description: String {
        "enqueued=\(enqueued) drained=\(drained) rejected-full=\(rejectedFull) max-depth=\(maxDepth)"
    }
}
