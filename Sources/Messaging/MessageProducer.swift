import Atomics

/// One producer thread's way to the display thread: its own ring and text slab, so producers never contend.
///
/// Get one from ``MessageBus/makeProducer(capacity:textCapacity:)`` on (or for) the thread that will send, and use
/// it from that thread only. When the thread is done, call ``close()``: the display thread forgets the ring once it
/// has drained what is left.
public final class MessageProducer: @unchecked Sendable {
    /// Distinguishes producers in ``ReceivedMessage/producerID``.
    public let id: Int
    let ring: SPSCRing<MessageSlot, HardwareRingAtomics>
    let slab: TextSlab
    let wakeup: WakeupSignal
    /// Where the display thread answers this producer (``ReceivedMessage/replyTo``).
    public let sink: (any ReplySink)?
    private let rejectedFull = ManagedAtomic<Int>(0)
    private let closed = ManagedAtomic<Bool>(false)

    init(id: Int, capacity: Int, textCapacity: Int, wakeup: WakeupSignal, sink: (any ReplySink)?) {
        precondition(
            textCapacity >= 2 * (Message.maximumTextBytes + Message.maximumNameBytes),
            "a text slab must hold the largest message twice, so one in flight never blocks the next")
        self.id = id
        ring = SPSCRing(capacity: capacity)
        slab = TextSlab(capacity: textCapacity)
        self.wakeup = wakeup
        self.sink = sink
    }

    /// The outcome of offering messages to the ring.
    public enum SendOutcome: Equatable, Sendable {
        case enqueued
        /// The ring or its text slab is full. Nothing was enqueued; tell the client "busy" or try later.
        case full
        /// The message breaks a documented limit (``Message/validate()``).
        case rejected(MessageError)
    }

    /// Enqueues `message` if there is room now, and wakes the display thread if it announced it is sleeping.
    /// - Parameter requestID: the client's id for this request (``MessageCodec/maximumRequestIDBytes`` at most):
    ///   the display thread answers a request whose id it has seen with the first one's reply instead of applying
    ///   it again, so a client that retries after a lost reply applies it once.
    public func trySend(_ message: Message, requestID: String? = nil) -> SendOutcome {
        let outcome = tryEnqueue(message, requestID: requestID)
        if outcome == .enqueued { wakeConsumer() }
        return outcome
    }

    /// ``trySend(_:requestID:)`` without the wakeup, for a caller that enqueues under a lock the display thread also
    /// takes: it calls ``wakeConsumer()`` once it has let go, so the display thread never wakes only to wait for it.
    public func tryEnqueue(_ message: Message, requestID: String? = nil) -> SendOutcome {
        let outcome = enqueue(message, requestID: requestID)
        if outcome == .full { rejectedFull.wrappingIncrement(ordering: .relaxed) }
        return outcome
    }

    /// Wakes the display thread if it announced it is sleeping (after ``tryEnqueue(_:requestID:)``).
    @inline(__always)
    public func wakeConsumer() { wakeup.notifyIfSleeping() }

    /// Enqueues `message`, waiting with `backoff` (spin, yield, sleep) while the ring is full, at most until
    /// `deadline` (``MonotonicClock`` nanoseconds). Returns `.full` if the display thread did not make room in time.
    public func send(_ message: Message, until deadline: UInt64, backoff: Backoff = Backoff()) -> SendOutcome {
        var backoff = backoff
        while true {
            let outcome = enqueue(message)
            if outcome == .enqueued { wakeup.notifyIfSleeping() }
            if outcome != .full { return outcome }
            // No wakeup needed here: a full ring is not empty, so the consumer's re-check will not let it sleep.
            if MonotonicClock.nanoseconds() >= deadline {
                rejectedFull.wrappingIncrement(ordering: .relaxed)
                return .full
            }
            backoff.wait()
        }
    }

    /// Enqueues the longest prefix of `messages` that fits now, publishing it with one release store and paying the
    /// wakeup check once. - Returns: how many were enqueued; stops early at the first invalid message too.
    public func trySend(contentsOf messages: some Collection<Message>) -> Int {
        if messages.isEmpty { return 0 }
        let mark = slab.reservationMark
        let (enqueued, refusedForRoom) = withUnsafeTemporaryAllocation(
            of: MessageSlot.self, capacity: messages.count
        ) { slots in
            var encoded = 0
            var slabFull = false
            var slabMarks: [UInt] = []
            slabMarks.reserveCapacity(messages.count)
            let now = MonotonicClock.nanoseconds()
            for message in messages {
                guard (try? message.validate()) != nil else { break }
                guard let slot = encode(message, at: now) else {
                    slabFull = true
                    break
                }
                slots[encoded] = slot
                slabMarks.append(slab.reservationMark)
                encoded += 1
            }
            let pushed = ring.push(contentsOf: UnsafeBufferPointer(rebasing: slots[..<encoded]))
            slab.rollBack(to: pushed == 0 ? mark : slabMarks[pushed - 1])
            return (pushed, slabFull || pushed < encoded)
        }
        if enqueued > 0 { wakeup.notifyIfSleeping() }
        // An invalid message ends the batch too, but that is a rejection, not a full ring.
        if refusedForRoom { rejectedFull.wrappingIncrement(ordering: .relaxed) }
        return enqueued
    }

    /// Declares that this producer will send nothing more; the display thread drops the ring once it is empty.
    public func close() { closed.store(true, ordering: .releasing) }

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// This producer's counters (readable from any thread).
    public var statistics: RingStatistics {
        var statistics = ring.statistics
        statistics.rejectedFull = rejectedFull.load(ordering: .relaxed)
        return statistics
    }

    private func enqueue(_ message: Message, requestID: String? = nil) -> SendOutcome {
        do throws(MessageError) {
            try message.validate()
            if let requestID { try MessageCodec.validateRequestID(requestID) }
        } catch {
            return .rejected(error)
        }
        let mark = slab.reservationMark
        guard let slot = encode(message, requestID: requestID, at: MonotonicClock.nanoseconds()) else {
            return .full
        }
        if ring.tryPush(slot) { return .enqueued }
        slab.rollBack(to: mark)
        return .full
    }

    /// Copies the message's strings to the slab and describes them in a slot; nil when the slab is full.
    private func encode(_ message: Message, requestID: String? = nil, at timestamp: UInt64) -> MessageSlot? {
        let (body, screen, argument, method) = MessageSlot.parts(of: message)
        guard let start = slab.write(body, screen ?? "", requestID ?? "") else { return nil }
        return MessageSlot(
            method: method.slotCode, hasScreen: screen != nil, requestIDLength: UInt8(requestID?.utf8.count ?? 0),
            bodyLength: UInt32(body.utf8.count), screenLength: UInt32(screen?.utf8.count ?? 0), argument: argument,
            textStart: start, enqueuedAt: timestamp)
    }
}
