import Foundation
import Messaging
import Testing

@testable import PhoneRemote

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `Date` header, formatted per response (the server runs without Hummingbird's 1 s date cache).
@Suite struct HTTPDateTests {
    @Test func formatsIMFFixdate() {
        // RFC 9110's own example.
        #expect(HTTPDate.format(secondsSinceEpoch: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(secondsSinceEpoch: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(secondsSinceEpoch: 1_795_000_000) == "Wed, 18 Nov 2026 11:06:40 GMT")
    }

    /// A response from the real server carries the time it was written.
    @Test func aResponseCarriesTheCurrentDate() async throws {
        let bus = try MessageBus()
        let display = FakeDisplay(bus: bus)
        let server = try PhoneRemoteServer(host: "127.0.0.1", port: 0, bus: bus)
        let port = try await server.listening()
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/healthz"))
        let (_, response) = try await URLSession.shared.data(from: url)
        let header = try #require((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Date"))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = try #require(formatter.date(from: header), "Date: \(header)")
        #expect(abs(date.timeIntervalSinceNow) < 5, "Date: \(header)")
        await server.shutdown()
        display.stop()
    }
}
