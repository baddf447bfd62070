import AsyncHTTPClient
import Crypto
import Glibc
import NIOCore
import NIOHTTP1

/// One asset's download, streamed into its own temporary file in the cache directory while its SHA-256 is computed:
/// refused as soon as its status is not 200 or its size (the `Content-Length`, then the bytes counted as they come)
/// passes the limit, and `fsync`ed at its end, so that the cache can rename a whole file into place.
///
/// Every call comes on the fetcher's event loop (the request runs there), one at a time; the file is written there
/// with plain `write(2)`: that loop does nothing else, and a local disk's write costs less than the socket's read.
final class AssetDownload: HTTPClientResponseDelegate, @unchecked Sendable {
    struct Result: Sendable {
        var temporaryPath: String
        var size: Int64
        var sha256: String
    }
    typealias Response = Result

    let url: String
    let temporaryPath: String
    private let limit: Int64
    private let expectedSHA256: String?
    private var fd: Int32 = -1
    private var hasher = SHA256()
    private var received: Int64 = 0

    init(url: String, temporaryPath: String, limit: Int64, expectedSHA256: String?) {
        self.url = url
        self.temporaryPath = temporaryPath
        self.limit = limit
        self.expectedSHA256 = expectedSHA256
    }

    func didReceiveHead(task: HTTPClient.Task<Result>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        guard head.status == .ok else {
            return task.eventLoop.makeFailedFuture(AssetError.status(Int(head.status.code)))
        }
        if let length = head.headers.first(name: "content-length").flatMap({ Int64($0) }), length > limit {
            return task.eventLoop.makeFailedFuture(AssetError.tooLarge(limit: limit))
        }
        do throws(AssetError) {
            fd = try AssetFiles.create(temporaryPath)
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Result>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        received += Int64(buffer.readableBytes)
        guard received <= limit else { return task.eventLoop.makeFailedFuture(AssetError.tooLarge(limit: limit)) }
        do throws(AssetError) {
            try buffer.withUnsafeReadableBytes { (bytes) throws(AssetError) in
                hasher.update(bufferPointer: bytes)
                try AssetFiles.write(fd, bytes, path: temporaryPath)
            }
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveError(task: HTTPClient.Task<Result>, _ error: Error) { discard() }

    func didFinishRequest(task: HTTPClient.Task<Result>) throws -> Result {
        guard fd >= 0 else { throw AssetError.transfer("the response had no body") }
        do throws(AssetError) {
            try AssetFiles.sync(fd, path: temporaryPath)
        } catch {
            discard()
            throw error
        }
        close(fd)
        fd = -1
        let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        if let expectedSHA256, digest != expectedSHA256 {
            unlink(temporaryPath)
            throw AssetError.checksumMismatch(expected: expectedSHA256, actual: digest)
        }
        return Result(temporaryPath: temporaryPath, size: received, sha256: digest)
    }

    /// Closes and removes the temporary file: nothing of a failed download stays. Safe twice.
    func discard() {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        unlink(temporaryPath)
    }
}
