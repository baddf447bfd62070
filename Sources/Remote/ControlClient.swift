import Foundation
import Messaging
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// One request, one reply: what the CLI needs. Connects per request (or per batch of requests sent at once), so there
/// is no connection to keep healthy. And one event stream: ``events(durationMilliseconds:handler:)`` keeps its
/// connection for as long as it reads.
public struct ControlClient: Sendable {
    public var path: String
    /// For the whole exchange: connecting, writing the request and reading the reply.
    public var timeoutMilliseconds: Int
    /// A reply longer than this is malformed (a status of thousands of screens is still far below it).
    public static let maximumReplyBytes = 16 << 20

    public init(path: String, timeoutMilliseconds: Int = 5000) {
        self.path = path
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// Sends `message` and returns the reply: `.result` or `.error` as the server gave it. - Parameter requestID: the
    /// request's id (default: a fresh UUID for anything but a query), so that sending the same request again after a
    /// timeout cannot apply it twice.
    public func request(
        _ message: Message, requestID: String? = nil
    ) throws(ControlError) -> Reply {
        try requests([(message, requestID)])[0]
    }

    /// Sends every request at once and returns their replies in the same order, so that none waits for the one before
    /// it to be answered: the screens of one `media show` are read together. The server answers a connection's
    /// requests in the order they came, and reads no more than ``ControlServer/Options/maximumRequestsInFlight`` of
    /// them ahead, so a larger batch is spread over as many connections, all written before any reply is read.
    /// ``timeoutMilliseconds`` covers the whole batch.
    public func requests(_ batch: [(message: Message, requestID: String?)]) throws(ControlError) -> [Reply] {
        let lines = batch.map { message, requestID in
            MessageCodec.encodeRequest(
                message, requestID: requestID ?? (message.isQuery ? nil : "cli-" + UUID().uuidString.lowercased()))
        }
        var replies: [Reply] = []
        for reply in try exchange(lines: lines) {
            do throws(MessageError) {
                replies.append(try MessageCodec.decodeResponse(reply))
            } catch {
                throw .malformedReply(excerpt: Self.excerpt(reply), reason: error.message)
            }
        }
        return replies
    }

    /// Sends one raw line (a `\n` is appended) and returns the reply line without its `\n`.
    public func exchange(line: String) throws(ControlError) -> String {
        try exchange(lines: [line])[0]
    }

    /// Sends raw lines (each gets a `\n`) at once and returns as many reply lines, without their `\n`.
    private func exchange(lines: [String]) throws(ControlError) -> [String] {
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(0, timeoutMilliseconds)) * 1_000_000
        let perConnection = ControlServer.Options().maximumRequestsInFlight
        let chunks = stride(from: 0, to: lines.count, by: perConnection).map {
            lines[$0..<min($0 + perConnection, lines.count)]
        }
        // Every connection made before anything is written: a server that cannot take them all gets none of the batch.
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        for _ in chunks { descriptors.append(try connect(until: deadline)) }
        for (descriptor, chunk) in zip(descriptors, chunks) {
            try write(Array(chunk.map { $0 + "\n" }.joined().utf8), to: descriptor, until: deadline)
        }
        var replies: [String] = []
        for (descriptor, chunk) in zip(descriptors, chunks) {
            var reader = LineReader()
            for _ in chunk {
                switch try reader.next(from: descriptor, until: deadline, path: path) {
                case .line(let reply): replies.append(reply)
                case .closed: throw .closedBeforeReply(path: path)
                case .timedOut: throw timedOut
                }
            }
        }
        return replies
    }

    /// How an event stream ended.
    public enum EventStreamEnd: Equatable, Sendable {
        /// The handler returned false.
        case stopped
        /// The duration passed.
        case timedOut
        /// The server closed the connection (Multiscreen stopped).
        case closed
        /// The server answered the subscription with an error (a Multiscreen without events answers
        /// `methodNotFound`).
        case refused(MessageError)
    }

    /// Subscribes to events and calls `handler` with each event line (without its `\n`) as it arrives, until the
    /// handler returns false, `durationMilliseconds` pass (nil: no limit) or the server closes the connection.
    ///
    /// Lines are `{"method":"<event name>","params":{...}}`, including `events.dropped` (``ControlEvents``).
    /// ``timeoutMilliseconds`` bounds connecting and the subscription's reply.
    /// - Throws: ``ControlError`` when there is no server, no reply to the subscription in time, or a malformed one.
    /// `subscribed` is called once the subscription is confirmed, before any event: from then on nothing is missed.
    public func events(
        durationMilliseconds: Int? = nil, subscribed: () -> Void = {}, handler: (String) -> Bool
    ) throws(ControlError) -> EventStreamEnd {
        let start = MonotonicClock.nanoseconds()
        let deadline = start + UInt64(max(0, timeoutMilliseconds)) * 1_000_000
        let end = durationMilliseconds.map { start + UInt64(max(0, $0)) * 1_000_000 }
        let descriptor = try connect(until: deadline)
        defer { close(descriptor) }
        let request = JSONValue.object(["method": .string(ControlEvents.subscribeMethod)]).serialized
        try write(Array((request + "\n").utf8), to: descriptor, until: deadline)
        var reader = LineReader()
        switch try reader.next(from: descriptor, until: min(deadline, end ?? deadline), path: path) {
        case .line(let reply):
            if reply != ControlEvents.subscribeReply {
                if case .error(let error)? = try? MessageCodec.decodeResponse(reply) { return .refused(error) }
                throw .malformedReply(excerpt: Self.excerpt(reply), reason: "not the reply to events.subscribe")
            }
            subscribed()
        case .closed: throw .closedBeforeReply(path: path)
        case .timedOut:
            if let end, end <= deadline { return .timedOut }
            throw timedOut
        }
        while true {
            // Checked between lines too: a steady stream never lets the read wait reach the deadline.
            if let end, MonotonicClock.nanoseconds() >= end { return .timedOut }
            switch try reader.next(from: descriptor, until: end, path: path) {
            case .line(let line): if !handler(line) { return .stopped }
            case .closed: return .closed
            case .timedOut: return .timedOut
            }
        }
    }

    private func connect(until deadline: UInt64) throws(ControlError) -> Int32 {
        while true {
            switch try ControlSocket.connect(to: path) {
            case .success(let descriptor):
                return descriptor
            case .failure(let error) where error.errno == ENOENT || error.errno == ECONNREFUSED:
                throw .notListening(path: path)
            case .failure(let error) where error.errno == EAGAIN:
                // The server's backlog is full: it is alive but behind. Retry until the deadline.
                if MonotonicClock.nanoseconds() >= deadline { throw timedOutSending }
                usleep(2000)
            case .failure(let error):
                throw .system(operation: "connect", path: path, errno: error.errno)
            }
        }
    }

    private func write(_ bytes: [UInt8], to descriptor: Int32, until deadline: UInt64) throws(ControlError) {
        var offset = 0
        while offset < bytes.count {
            do {
                offset += try systemCall("send") {
                    bytes.withUnsafeBytes { raw in
                        send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                    }
                }
            } catch  where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
                try wait(for: POLLOUT, on: descriptor, until: deadline)
            } catch  where error.errno == EPIPE || error.errno == ECONNRESET {
                throw .closedBeforeReply(path: path)
            } catch {
                throw .system(operation: "send to", path: path, errno: error.errno)
            }
        }
    }

    private func wait(for events: Int32, on descriptor: Int32, until deadline: UInt64) throws(ControlError) {
        if try !ControlClient.poll(descriptor, for: events, until: deadline, path: path) { throw timedOutSending }
    }

    /// Waits until `descriptor` reports one of `events` (or an error or hang-up, which the next call reports).
    /// - Returns: false when `deadline` (nil: none) passed first.
    fileprivate static func poll(
        _ descriptor: Int32, for events: Int32, until deadline: UInt64?, path: String
    ) throws(ControlError) -> Bool {
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let now = MonotonicClock.nanoseconds()
                if now >= deadline { return false }
                timeout = Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
            }
            var entry = pollfd(fd: descriptor, events: Int16(events), revents: 0)
            // A signal (EINTR) comes back here with the timeout recomputed; the helper would retry the old one.
            let ready = Glibc.poll(&entry, 1, timeout)
            let error = errno
            if ready > 0 { return true }
            if ready < 0 && error != EINTR { throw .system(operation: "poll", path: path, errno: error) }
        }
    }

    private var timedOut: ControlError { .timedOut(path: path, milliseconds: timeoutMilliseconds) }
    private var timedOutSending: ControlError { .timedOutSending(path: path, milliseconds: timeoutMilliseconds) }

    static func excerpt(_ text: String) -> String {
        text.count <= 200 ? text : String(text.prefix(200)) + "…"
    }
}

/// Lines from a non-blocking socket, keeping what follows a line for the next one.
private struct LineReader {
    enum Outcome {
        case line(String)
        case closed
        case timedOut
    }

    private var buffered: [UInt8] = []
    /// Where the next line starts in `buffered` (lines are not removed one by one: a chunk holds many events).
    private var start = 0
    /// Where to resume searching for a newline.
    private var searched = 0
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    /// The next line without its `\n`; `.closed` at end of stream (a partial last line is discarded); `.timedOut`
    /// at `deadline` (nil: none).
    mutating func next(from descriptor: Int32, until deadline: UInt64?, path: String) throws(ControlError) -> Outcome {
        while true {
            if let newline = buffered[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffered[start..<newline])
                start = newline + 1
                searched = start
                guard let text = String(validating: line, as: UTF8.self) else {
                    throw .malformedReply(
                        excerpt: ControlClient.excerpt(String(decoding: line.prefix(200), as: UTF8.self)),
                        reason: "not UTF-8")
                }
                return .line(text)
            }
            buffered.removeFirst(start)
            start = 0
            searched = buffered.count
            if buffered.count > ControlClient.maximumReplyBytes {
                throw .malformedReply(
                    excerpt: ControlClient.excerpt(String(decoding: buffered.prefix(200), as: UTF8.self)),
                    reason: "longer than \(ControlClient.maximumReplyBytes) bytes")
            }
            let count: Int
            do {
                count = try systemCall("read") {
                    chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                }
            } catch  where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
                if try !ControlClient.poll(descriptor, for: POLLIN, until: deadline, path: path) { return .timedOut }
                continue
            } catch  where error.errno == ECONNRESET {
                return .closed
            } catch {
                throw .system(operation: "read from", path: path, errno: error.errno)
            }
            if count == 0 { return .closed }
            buffered.append(contentsOf: chunk[..<count])
        }
    }
}
