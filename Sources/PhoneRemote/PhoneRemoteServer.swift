import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import Messaging
import NIOCore
import NIOPosix
import Synchronization

/// The phone remote as a ``MessageSource``: Hummingbird serving ``RemoteRoutes`` on its own event loop group (one
/// thread), a ``ProducerChannel`` into the bus, and a once-a-second tick of the access gate.
///
/// ```swift
/// let remote = try PhoneRemoteServer(host: "127.0.0.1", port: 8080, bus: bus)
/// remote.url   // "http://127.0.0.1:8080/"
/// remote.stop()
/// ```
public final class PhoneRemoteServer: MessageSource, @unchecked Sendable {
    public struct Options: Sendable {
        public var hub = RemoteHub.Options()
        /// Extra names the kiosk is reached by (besides the listen address), for `Host`/`Origin` checks.
        public var extraHosts: [String] = []
        /// The link shown in the QR code; default `http://HOST:PORT/`.
        public var publicURL: String?

        public init() {}
    }

    public let name = "remote"
    public let hub: RemoteHub
    /// The listen address as bound (the real port when 0 was asked for).
    public let host: String
    public let port: Int
    private let channel: ProducerChannel
    private let group: MultiThreadedEventLoopGroup
    private let tasks = Mutex<[Task<Void, Never>]>([])
    private let logger = Logger(label: "multiscreen.remote")
    private let baseURL: String

    /// Binds `host:port` and starts serving; throws when the address cannot be bound (within 10 s).
    /// - Parameter onDisplay: what the screens should show, whenever it changes (called on the remote's threads).
    public init(
        host: String, port: Int, bus: MessageBus, options: Options = Options(),
        onDisplay: @escaping @Sendable (RemoteDisplay, _ url: String) -> Void = { _, _ in }
    ) throws {
        let channel = ProducerChannel()
        channel.attach(to: bus)
        self.channel = channel
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // The hub reports its first display before the URL is known: that one is reported below, once bound.
        let url = Mutex<String?>(nil)
        // An offer the ring had no room for, posted again on the next tick.
        let unsent = Mutex<Message?>(nil)
        hub = RemoteHub(options: options.hub, sender: channel) { display in
            if let known = url.withLock({ $0 }) {
                Self.show(display, url: known, channel: channel, unsent: unsent, onDisplay)
            }
        }
        let bound = BoundSignal()
        let router = RemoteRoutes.router(
            hub: hub, hosts: HostPolicy(host: host, port: port, extraHosts: options.extraHosts))
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: router,
                configuration: .init(ws: .init(maxFrameSize: options.hub.maximumMessageBytes))),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in bound.signal(.success(channel.localAddress?.port ?? port)) },
            eventLoopGroupProvider: .shared(group),
            logger: Logger(label: "multiscreen.remote.http"))
        let serverTask = Task {
            do {
                try await app.run()
            } catch {
                bound.signal(.failure(error))
            }
            bound.signal(.failure(RemoteError.stopped))
        }
        let boundPort: Int
        switch bound.wait(seconds: 10) {
        case .success(let port)?: boundPort = port
        case .failure(let error)?:
            serverTask.cancel()
            channel.close()
            try? group.syncShutdownGracefully()
            throw RemoteError.cannotListen("\(host):\(port)", "\(error)")
        case nil:
            serverTask.cancel()
            channel.close()
            try? group.syncShutdownGracefully()
            throw RemoteError.cannotListen("\(host):\(port)", "timed out")
        }
        self.host = host
        self.port = boundPort
        baseURL = options.publicURL ?? "http://\(HostPolicy.authority(host, boundPort))/"
        url.withLock { $0 = baseURL }
        let hub = self.hub
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                hub.tick()
                // Under the lock, so a newer offer cannot be posted between this one's check and its post.
                unsent.withLock { pending in
                    if let message = pending, channel.post(message) { pending = nil }
                }
            }
        }
        tasks.withLock { $0 = [serverTask, ticker] }
        Self.show(hub.display, url: baseURL, channel: channel, unsent: unsent, onDisplay)
        logger.info("phone remote listening at \(baseURL)")
    }

    /// The link for a code: the QR code's content.
    public func link(for code: AccessCode) -> String { Self.link(base: baseURL, code: code) }

    static func link(base: String, code: AccessCode) -> String { "\(base)?code=\(code.token)" }

    /// Tells the display thread what the external screens show for the remote (through this remote's own
    /// producer, in order with its other messages), and the caller's observer.
    private static func show(
        _ display: RemoteDisplay, url: String, channel: ProducerChannel, unsent: borrowing Mutex<Message?>,
        _ onDisplay: @Sendable (RemoteDisplay, String) -> Void
    ) {
        let offer: Message
        switch display {
        case .code(let code): offer = .remoteOffer(link: link(base: url, code: code), code: code.short, locked: false)
        case .inControl: offer = .remoteOffer(link: "", code: "", locked: false)
        case .locked: offer = .remoteOffer(link: "", code: "", locked: true)
        }
        let posted = unsent.withLock { pending in
            let posted = channel.post(offer)
            pending = posted ? nil : offer
            return posted
        }
        if !posted {
            Logger(label: "multiscreen.remote").warning("the display is busy: the remote's code goes on screen later")
        }
        onDisplay(display, url)
    }

    public var counters: [String: Int] {
        hub.counters.merging(["rejectedBusy": channel.rejectedFull, "port": port]) { a, _ in a }
    }

    /// Stops serving, closes every connection and the producer. Idempotent.
    public func stop() {
        let running = tasks.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        guard !running.isEmpty else { return }
        for task in running { task.cancel() }
        let done = DispatchSemaphore(value: 0)
        Task {
            for task in running { await task.value }
            done.signal()
        }
        if done.wait(timeout: .now() + 5) == .timedOut { logger.warning("phone remote did not stop within 5 s") }
        // Nothing to scan once the remote is gone.
        channel.post(.remoteOffer(link: "", code: "", locked: false))
        channel.close()
        try? group.syncShutdownGracefully()
        logger.info("phone remote stopped")
    }

    deinit { stop() }
}

public enum RemoteError: Error, CustomStringConvertible {
    case cannotListen(String, String)
    case stopped

    public var description: String {
        switch self {
        case .cannotListen(let address, let why): "cannot listen at \(address): \(why)"
        case .stopped: "the server stopped"
        }
    }
}

/// The first outcome of binding, waited for by the starting thread.
private final class BoundSignal: Sendable {
    private let result = Mutex<Result<Int, any Error>?>(nil)
    private let semaphore = DispatchSemaphore(value: 0)

    func signal(_ outcome: Result<Int, any Error>) {
        let first = result.withLock { result in
            guard result == nil else { return false }
            result = outcome
            return true
        }
        if first { semaphore.signal() }
    }

    func wait(seconds: Double) -> Result<Int, any Error>? {
        _ = semaphore.wait(timeout: .now() + seconds)
        return result.withLock { $0 }
    }
}
