import Crypto
import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// A real HTTP server on 127.0.0.1 for the fetcher's tests (Hummingbird, started by each test with `.live`): whole
/// pictures, a response that ends halfway through the body its `Content-Length` announced, one that stalls halfway,
/// one bigger than a download may be; it counts the requests it answered.
final class AssetServer: Sendable {
    static let picture = [UInt8]((0..<1000).map { UInt8($0 % 251) })
    static let others = ["b.png": [UInt8](repeating: 2, count: 1000), "c.png": [UInt8](repeating: 3, count: 1000)]
    static let big = [UInt8](repeating: 9, count: 5000)

    let requests = Mutex(0)

    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: Data(bytes)).map { String(format: "%02x", $0) }.joined()
    }

    func application() -> some ApplicationProtocol {
        let router = Router()
        let counted = { @Sendable [self] (_ bytes: [UInt8]) -> Response in
            requests.withLock { $0 += 1 }
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        router.get("picture.png") { _, _ in counted(Self.picture) }
        router.get("a.png") { _, _ in counted(Self.picture) }
        for (name, bytes) in Self.others { router.get(RouterPath(name)) { _, _ in counted(bytes) } }
        router.get("big.png") { _, _ in counted(Self.big) }
        // /hop/N redirects to /hop/N+1 up to 10, which redirects to the picture: 10 − N + 1 redirects in all.
        router.get("hop/:n") { _, context in
            let n = try context.parameters.require("n", as: Int.self)
            let next = n < 10 ? "/hop/\(n + 1)" : "/picture.png"
            return Response(status: .found, headers: [.location: next])
        }
        router.get("half.png") { _, _ in
            Response(
                status: .ok,
                body: ResponseBody(contentLength: Self.picture.count) { writer in
                    try await writer.write(ByteBuffer(bytes: Self.picture.prefix(100)))
                    throw CancellationError()
                })
        }
        router.get("stall.png") { _, _ in
            Response(
                status: .ok,
                body: ResponseBody(contentLength: Self.picture.count) { writer in
                    try await writer.write(ByteBuffer(bytes: Self.picture.prefix(100)))
                    try await Task.sleep(for: .seconds(3))
                    throw CancellationError()
                })
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }
}
