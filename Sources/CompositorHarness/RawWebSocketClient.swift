import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A small blocking HTTP and WebSocket client over one loopback TCP socket, for the phone remote's benchmarks and
/// integration tests: it sends exactly what a browser would (an `Origin` with the port, the session cookie), masks
/// its frames as RFC 6455 requires, and reads the server's text frames. One owner, one socket: closed in ``close()`` or `deinit`.
public final class RawWebSocketClient {
    private var fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `127.0.0.1:port`; every read gives up after `timeout` seconds.
    public init(port: Int, timeout: Double = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let why = String(cString: strerror(errno))
            Glibc.close(fd)
            fd = -1
            throw HarnessError("connect to 127.0.0.1:\(port): \(why)")
        }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close() }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    public func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw HarnessError("send: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw HarnessError("recv: \(String(cString: strerror(errno)))") }
            if count == 0 { throw HarnessError("the server closed the connection") }
            buffer += chunk[..<count]
            return
        }
    }

    /// Sends an HTTP/1.1 request; returns the status code and the headers (lower-case names). The body is read and
    /// dropped when `Content-Length` gives it.
    public func request(_ head: String) throws -> (status: Int, headers: [String: String]) {
        try write(Array(head.utf8))
        while true {
            if let end = buffer.indices.dropLast(3).first(where: { buffer[$0..<$0 + 4] == [13, 10, 13, 10] }) {
                let text = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                let lines = text.split(separator: "\r\n")
                let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                        .trimmingCharacters(in: .whitespaces)
                }
                if let length = headers["content-length"].flatMap(Int.init) {
                    while buffer.count < length { try fill() }
                    buffer.removeFirst(length)
                }
                return (status, headers)
            }
            try fill()
        }
    }

    /// `POST /claim` with `code`, as the QR link's page posts it (a GET of the link claims nothing): the session
    /// cookie's `name=value`, or nil when the claim is refused. `code` is a token or a short code (URL-safe as is).
    public func claim(code: String, port: Int) throws -> String? {
        let body = "code=\(code)"
        let (status, headers) = try request(
            "POST /claim HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Connection: keep-alive\r\n\r\n\(body)")
        guard status == 200, let cookie = headers["set-cookie"] else { return nil }
        return cookie.split(separator: ";").first.map(String.init)
    }

    /// Upgrades this connection to the remote's WebSocket with `cookie`; returns the HTTP status (101 on success).
    public func upgrade(port: Int, cookie: String?) throws -> Int {
        var head =
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        if let cookie { head += "Cookie: \(cookie)\r\n" }
        return try request(head + "\r\n").status
    }

    /// One masked text frame.
    public func sendText(_ text: String) throws {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try write(frame)
    }

    /// The next text frame's payload; nil when the server closed the WebSocket (a close frame).
    public func readText() throws -> String? {
        while true {
            if buffer.count >= 2 {
                let opcode = buffer[0] & 0x0f
                var length = Int(buffer[1] & 0x7f)
                var header = 2
                if length == 126 {
                    if buffer.count < 4 {
                        try fill()
                        continue
                    }
                    length = Int(buffer[2]) << 8 | Int(buffer[3])
                    header = 4
                } else if length == 127 {
                    if buffer.count < 10 {
                        try fill()
                        continue
                    }
                    length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
                    header = 10
                }
                if buffer.count >= header + length {
                    let payload = Array(buffer[header..<header + length])
                    buffer.removeFirst(header + length)
                    switch opcode {
                    case 0x1: return String(decoding: payload, as: UTF8.self)
                    case 0x8: return nil
                    default: continue  // ping, pong, binary: not for us
                    }
                }
            }
            try fill()
        }
    }
}
