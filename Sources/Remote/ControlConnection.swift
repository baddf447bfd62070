import Messaging
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// One accepted client, owned by the server thread.
///
/// Replies leave in request order whatever order they are produced in: every request takes the next place in
/// `pending`, local errors fill their place at once, display-thread replies fill theirs when they arrive, and only
/// the filled prefix moves to `output`. Writes are non-blocking; what the peer does not take stays in `output` and
/// is written when the socket polls writable.
///
/// Events for a subscribed connection go straight to `output`, between whole reply lines: they never hold up a
/// reply, and replies keep their order. The subscription starts when its reply moves to `output`, so the first
/// event a client reads comes after the `events.subscribe` result.
final class ControlConnection {
    let id: Int
    let descriptor: Int32
    var framer: LineFramer
    /// The peer closed its side (or we stopped reading after an error): no more requests, finish the replies.
    var readClosed = false
    /// Malformed requests so far, to log only the first few.
    var malformedRequests = 0
    /// Events are written to this connection (its `events.subscribe` reply has moved to the output).
    private(set) var subscribed = false
    /// Events not queued since the output went over the limit, to report in one `events.dropped` line.
    var eventsDropped = 0
    /// Requests of this connection in the ring to the display thread, not answered yet.
    var inFlight = 0
    /// Requests read but not yet handled because ``inFlight`` is at the server's limit; nothing more is read from
    /// the connection until they are (a pipelining client waits on its own socket instead of filling the ring).
    var held = FIFO<LineFramer.Event>()

    /// Places in request order; nil while the display thread has not answered; empty for a request that gets no
    /// reply (a JSON-RPC notification).
    private var pending = FIFO<[UInt8]?>()
    /// ``MonotonicClock`` nanoseconds of the last byte read or written: when the idle timeout counts from.
    var lastActivity = MonotonicClock.nanoseconds()
    /// Sequence number of `pending`'s first place.
    private var firstSequence = 0
    private var output: [UInt8] = []
    private var outputStart = 0
    /// Sequence number of the `events.subscribe` reply that will start the subscription when it is promoted.
    private var subscribeSequence: Int?

    init(id: Int, descriptor: Int32, lineLimit: Int) {
        self.id = id
        self.descriptor = descriptor
        framer = LineFramer(limit: lineLimit)
    }

    var hasUnsentOutput: Bool { outputStart < output.count }
    var unsentBytes: Int { output.count - outputStart }
    /// Every request handled and answered and every reply written.
    var isFinished: Bool { held.isEmpty && pending.isEmpty && !hasUnsentOutput }

    /// Reserves the next place for a reply that the display thread will give. - Returns: its sequence number.
    func reserve() -> Int {
        pending.push(nil)
        return firstSequence + pending.count - 1
    }

    /// Queues a reply that is known now (a local error), behind every earlier request's.
    func append(line: String) {
        pending.push(Self.bytes(of: line))
    }

    /// Queues the reply to `events.subscribe`, behind every earlier request's; the subscription starts when this
    /// reply moves to the output (``promoteReady()``).
    func appendSubscribeReply(line: String) {
        if !subscribed && subscribeSequence == nil { subscribeSequence = firstSequence + pending.count }
        append(line: line)
    }

    /// Queues an event line (as ``bytes(of:)`` made it) after whatever is already in the output.
    func appendEvent(_ line: [UInt8]) {
        output.append(contentsOf: line)
    }

    /// Fills the place `sequence` reserved; nil: the request gets no reply line.
    func fill(_ sequence: Int, line: String?) {
        pending[sequence - firstSequence] = line.map(Self.bytes(of:)) ?? []
    }

    /// Moves the answered prefix of `pending` to the output buffer. - Returns: how many replies moved.
    func promoteReady() -> Int {
        var moved = 0
        while case .some(.some(let line)) = pending.first {
            _ = pending.popFirst()
            if firstSequence == subscribeSequence {
                subscribed = true
                subscribeSequence = nil
            }
            firstSequence += 1
            if line.isEmpty { continue }
            output.append(contentsOf: line)
            moved += 1
        }
        return moved
    }

    /// Replies answered but stuck behind an unanswered one: lost if the connection closes now.
    var answeredButQueued: Int {
        var count = 0
        for offset in 0..<pending.count where pending[offset] != nil { count += 1 }
        return count
    }

    enum WriteOutcome {
        case done
        case wouldBlock
        case failed(Int32)
    }

    /// Writes as much of the output as the socket takes now, never blocking. `MSG_NOSIGNAL`: a vanished peer is an
    /// `EPIPE` here, not a process-killing `SIGPIPE`.
    func flush() -> WriteOutcome {
        while outputStart < output.count {
            let written: Int
            do {
                written = try systemCall("send") {
                    output.withUnsafeBytes { raw in
                        send(descriptor, raw.baseAddress! + outputStart, raw.count - outputStart, Int32(MSG_NOSIGNAL))
                    }
                }
            } catch  where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
                compactOutput()
                return .wouldBlock
            } catch {
                return .failed(error.errno)
            }
            if written == 0 { return .failed(EPIPE) }
            outputStart += written
        }
        output.removeAll(keepingCapacity: output.capacity <= 1 << 16)
        outputStart = 0
        return .done
    }

    private func compactOutput() {
        if outputStart >= 1 << 16 && outputStart * 2 >= output.count {
            output.removeFirst(outputStart)
            outputStart = 0
        }
    }

    /// A reply or event line as written: the display thread's JSON (newlines flattened to spaces, which JSON treats as
    /// whitespace; a raw newline inside a JSON string would be invalid anyway) plus the terminating `\n`.
    static func bytes(of line: String) -> [UInt8] {
        var bytes = Array(line.utf8)
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") || bytes[index] == UInt8(ascii: "\r") {
            bytes[index] = UInt8(ascii: " ")
        }
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}
