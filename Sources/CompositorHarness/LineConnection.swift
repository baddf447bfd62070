import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A raw, blocking client of a Unix stream socket that speaks in lines: for tests that must send what a well-behaved
/// client never would (pipelined requests, a half line, bytes that are not UTF-8) and read replies one at a time.
public final class LineConnection {
    public let descriptor: Int32
    private var buffered: [UInt8] = []

    /// Connects to the socket at `path`.
    /// - Throws: ``HarnessError`` when nothing accepts there.
    public init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result != 0 {
            let error = errno
            close(descriptor)
            throw HarnessError("connect \(path): \(String(cString: strerror(error)))")
        }
    }

    deinit { close(descriptor) }

    /// Writes all of `text`, blocking while the peer's buffer is full; false when the peer has closed the
    /// connection (what it sent before closing can still be read).
    @discardableResult
    public func write(_ text: String) -> Bool { write(bytes: Array(text.utf8)) }

    @discardableResult
    public func write(bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 && (errno == EPIPE || errno == ECONNRESET) { return false }
            precondition(written > 0, "write failed: \(String(cString: strerror(errno)))")
            offset += written
        }
        return true
    }

    public func shutdownWriting() { _ = shutdown(descriptor, Int32(SHUT_WR)) }

    /// Writes `bytes` again and again, never blocking, until the peer has stopped reading: 20 tries 20 ms apart
    /// find the socket full. What a client that pipelines requests and never reads the replies does (the server
    /// stops reading once its buffer of replies is full, then ours fills).
    public func writeUntilStalled(_ bytes: [UInt8]) {
        var stalled = 0
        while stalled < 20 {
            let written = bytes.withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if written < 0 {
                stalled += 1
                usleep(20_000)
            } else {
                stalled = 0
            }
        }
    }

    /// The next line, or nil at end of stream; throws after `timeout` seconds without one.
    public func readLine(timeout: Double = 3) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeFirst(newline + 1)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { throw HarnessError("no line within \(timeout) s") }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, Int32(remaining * 1000) + 1) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { return nil }
            buffered.append(contentsOf: chunk[..<count])
        }
    }
}
