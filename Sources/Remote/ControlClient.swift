import Messaging

#if canImport(Glibc)
    import Glibc
#endif

/// One request, one reply: what the CLI needs. Connects per request, so there is no connection to keep healthy.
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

    /// Sends `message` and decodes the reply: `.result` or `.error` as the server gave it.
    public func request(_ message: Message) throws(ControlError) -> MessageCodec.Response {
        let reply = try exchange(line: MessageCodec.encodeRequest(message))
        do throws(MessageError) {
            return try MessageCodec.decodeResponse(reply)
        } catch {
            throw .malformedReply(excerpt: Self.excerpt(reply), reason: error.message)
        }
    }

    /// Sends one raw line (a `\n` is appended) and returns the reply line without its `\n`.
    public func exchange(line: String) throws(ControlError) -> String {
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(0, timeoutMilliseconds)) * 1_000_000
        let descriptor = try connect(until: deadline)
        defer { close(descriptor) }
        try write(Array((line + "\n").utf8), to: descriptor, until: deadline)
        return try readLine(from: descriptor, until: deadline)
    }

    private func connect(until deadline: UInt64) throws(ControlError) -> Int32 {
        while true {
            switch try ControlSocket.connect(to: path) {
            case .success(let descriptor):
                return descriptor
            case .failure(let error) where error.code == ENOENT || error.code == ECONNREFUSED:
                throw .notListening(path: path)
            case .failure(let error) where error.code == EAGAIN:
                // The server's backlog is full: it is alive but behind. Retry until the deadline.
                if MonotonicClock.nanoseconds() >= deadline { throw timedOut }
                usleep(2000)
            case .failure(let error):
                throw .system(operation: "connect", path: path, errno: error.code)
            }
        }
    }

    private func write(_ bytes: [UInt8], to descriptor: Int32, until deadline: UInt64) throws(ControlError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                offset += written
            } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                try wait(for: POLLOUT, on: descriptor, until: deadline)
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && (errno == EPIPE || errno == ECONNRESET) {
                throw .closedBeforeReply(path: path)
            } else {
                throw .system(operation: "send to", path: path, errno: errno)
            }
        }
    }

    private func readLine(from descriptor: Int32, until deadline: UInt64) throws(ControlError) -> String {
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                let received = chunk[..<count]
                if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                    reply.append(contentsOf: received[..<newline])
                    break
                }
                reply.append(contentsOf: received)
                if reply.count > Self.maximumReplyBytes {
                    throw .malformedReply(
                        excerpt: Self.excerpt(String(decoding: reply.prefix(200), as: UTF8.self)),
                        reason: "longer than \(Self.maximumReplyBytes) bytes")
                }
            } else if count == 0 {
                throw .closedBeforeReply(path: path)
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                try wait(for: POLLIN, on: descriptor, until: deadline)
            } else if errno != EINTR {
                if errno == ECONNRESET { throw .closedBeforeReply(path: path) }
                throw .system(operation: "read from", path: path, errno: errno)
            }
        }
        guard let text = String(validating: reply, as: UTF8.self) else {
            throw .malformedReply(
                excerpt: Self.excerpt(String(decoding: reply.prefix(200), as: UTF8.self)), reason: "not UTF-8")
        }
        return text
    }

    private func wait(for events: Int32, on descriptor: Int32, until deadline: UInt64) throws(ControlError) {
        while true {
            let now = MonotonicClock.nanoseconds()
            if now >= deadline { throw timedOut }
            var entry = pollfd(fd: descriptor, events: Int16(events), revents: 0)
            let remaining = Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
            let ready = poll(&entry, 1, remaining)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw .system(operation: "poll", path: path, errno: errno) }
        }
    }

    private var timedOut: ControlError { .timedOut(path: path, milliseconds: timeoutMilliseconds) }

    private static func excerpt(_ text: String) -> String {
        text.count <= 200 ? text : String(text.prefix(200)) + "…"
    }
}
