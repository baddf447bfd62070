import Foundation
import Messaging
import Testing

@testable import PhoneRemote

/// The remote over TLS with a real self-signed certificate (made by `openssl req`), reached by real clients that
/// verify it: curl for the page and `/healthz`, `openssl s_client` carrying a WebSocket handshake and a masked text
/// frame for `/ws`.
@Suite struct RemoteTLSTests {
    /// A self-signed certificate for localhost and 127.0.0.1, and its key, in a fresh directory.
    static func makeCertificate() throws -> (directory: URL, cert: String, key: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("remote-tls-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let result = try run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key,
                "-out", cert,
            ])
        guard result.status == 0 else { throw RemoteError.tls("openssl req failed: \(result.output)") }
        return (directory, cert, key)
    }

    static func run(_ path: String, _ arguments: [String], input: Data? = nil) throws -> (status: Int32, output: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func pageAndWebSocketOverTLS() async throws {
        let files = try await onThread { try Self.makeCertificate() }
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let bus = try MessageBus()
        let display = FakeDisplay(bus: bus)
        var options = PhoneRemoteServer.Options()
        options.tls = TLSFiles(certificate: files.cert, key: files.key)
        let server = try PhoneRemoteServer(host: "127.0.0.1", port: 0, bus: bus, options: options)
        let port = try await server.listening()
        // The QR code's link is https.
        #expect(
            await display.wait { $0.contains { $0.offerLink?.hasPrefix("https://127.0.0.1:\(port)/?code=") == true } })

        // curl verifies the certificate against the one we made.
        let health = try await onThread {
            try Self.run("/usr/bin/curl", ["-sS", "--cacert", files.cert, "https://localhost:\(port)/healthz"])
        }
        #expect(health.output == "ok\n")
        // Plain HTTP to the TLS port is no page.
        let plain = try await onThread {
            try Self.run("/usr/bin/curl", ["-sS", "-m", "5", "http://localhost:\(port)/healthz"])
        }
        #expect(plain.output != "ok\n")
        // Claiming over HTTPS sets the session cookie.
        guard case .code(let code) = server.hub.display else { throw RemoteError.stopped }
        let claim = try await onThread {
            try Self.run(
                "/usr/bin/curl",
                [
                    "-sS", "-i", "--cacert", files.cert, "-H", "Origin: https://localhost:\(port)", "--data",
                    "code=\(code.token)", "https://localhost:\(port)/claim",
                ])
        }
        let cookie = try #require(
            claim.output.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") })
        let token = try #require(
            cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init))

        // WSS: openssl s_client verifies the certificate and carries our handshake and one masked frame.
        let payload = Array(#"{"method":"send","params":{"text":"over TLS"}}"#.utf8)
        var frame: [UInt8] = [0x81, 0x80 | UInt8(payload.count)]
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        let handshake =
            "GET /ws HTTP/1.1\r\nHost: localhost:\(port)\r\nOrigin: https://localhost:\(port)\r\n"
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nCookie: \(RemoteRoutes.cookieName)=\(token)\r\n\r\n"
        // A close frame after the request, so the server ends the connection and s_client's output is complete.
        let close: [UInt8] = [0x88, 0x82] + mask + [0x03 ^ mask[0], 0xe8 ^ mask[1]]
        let input = Data(Array(handshake.utf8) + frame)
        let result = try await onThread {
            try Self.run(
                "/usr/bin/timeout",
                [
                    "20", "/usr/bin/openssl", "s_client", "-quiet", "-verify_return_error", "-CAfile", files.cert,
                    "-verify_hostname",
                    "localhost", "-servername", "localhost", "-connect", "127.0.0.1:\(port)",
                ], input: input + Data(close))
        }
        #expect(result.output.contains("HTTP/1.1 101"), "\(result.output)")
        #expect(result.output.contains(#"{"method":"send","result":{"id":1,"screen":null}}"#), "\(result.output)")
        #expect(display.messages.contains(.send(text: "over TLS", screen: nil)))
        await server.shutdown()
        display.stop()
    }

    @Test func anUnreadableCertificateIsAPreciseError() throws {
        let bus = try MessageBus()
        var options = PhoneRemoteServer.Options()
        options.tls = TLSFiles(certificate: "/nonexistent/cert.pem", key: "/nonexistent/key.pem")
        #expect {
            try PhoneRemoteServer(host: "127.0.0.1", port: 0, bus: bus, options: options)
        } throws: { error in
            "\(error)".contains("/nonexistent/cert.pem")
        }
    }
}
