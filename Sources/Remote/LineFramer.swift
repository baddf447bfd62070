/// Splits a byte stream into `\n`-terminated lines of at most `limit` bytes, without ever holding more than `limit`
/// bytes of one line: an overlong line is reported once, as soon as it crosses the limit, and the rest of it is
/// skipped up to its newline, so a client that sends megabytes by mistake costs no memory and keeps its connection.
struct LineFramer {
    enum Event: Equatable {
        /// A complete line without its `\n` (and without a trailing `\r`, for clients that write CRLF).
        case line([UInt8])
        /// A line crossed the limit; what follows up to the next `\n` is discarded.
        case tooLong
    }

    let limit: Int
    private var partial: [UInt8] = []
    private var discarding = false

    init(limit: Int) { self.limit = limit }

    /// Bytes of a line in progress (not counting a discarded one).
    var pendingBytes: Int { partial.count }

    mutating func append(_ bytes: UnsafeRawBufferPointer) -> [Event] {
        var events: [Event] = []
        var start = 0
        while start < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[start...])
            let newline = rest.firstIndex(of: UInt8(ascii: "\n")).map { $0 - rest.startIndex }
            let segment = UnsafeRawBufferPointer(
                rebasing: rest[rest.startIndex..<rest.startIndex + (newline ?? rest.count)])
            if discarding {
                if newline != nil { discarding = false }
            } else if partial.count + segment.count > limit {
                events.append(.tooLong)
                partial.removeAll(keepingCapacity: false)
                discarding = newline == nil
            } else {
                partial.append(contentsOf: segment)
                if newline != nil { events.append(.line(takeLine())) }
            }
            guard let newline else { break }
            start += newline + 1
        }
        return events
    }

    /// End of stream: a last line without a newline still counts (`printf '{"method":"status"}' | socat …`).
    mutating func finish() -> [Event] {
        defer { discarding = false }
        if discarding || partial.isEmpty { return [] }
        return [.line(takeLine())]
    }

    private mutating func takeLine() -> [UInt8] {
        if partial.last == UInt8(ascii: "\r") { partial.removeLast() }
        defer { partial = [] }
        return partial
    }
}
