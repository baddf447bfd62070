import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import Messaging
import NIOCore
import NIOPosix
import Synchronization
import SystemCalls

/// The phone remote as a ``MessageSource``: Hummingbird's server (``RouterServer``) serving ``RemoteRoutes`` (over TLS when given a certificate)
/// on its own event loop group (one thread), a ``ProducerChannel`` into the bus, and a ``DeadlineTimer`` that
/// applies the access gate's limits when one is due, not before.
///
/// Making one never waits for the socket: binding happens on the remote's own thread, and ``listening()`` (or
/// ``state``) tells how it went. The QR code's offer is posted once the address is bound.
///
/// ```swift
/// let remote = try PhoneRemoteServer(host: "127.0.0.1", port: 8080, bus: bus)
/// let port = try await remote.listening()
/// remote.stop()
/// ```
public final class PhoneRemoteServer: MessageSource, @unchecked Sendable {
    public struct Options: Sendable {
        public var hub = RemoteHub.Options()
        /// Extra names the kiosk is reached by (besides the listen address), for `Host`/`Origin` checks.
        public var extraHosts: [String] = []
        /// The link shown in the QR code; default `http(s)://HOST:PORT/`.
        public var publicURL: String?
        /// Serve HTTPS and WSS with this certificate chain and key (PEM files).
        public var tls: TLSFiles?

        public init() {}
    }

    /// Where the server is in its life.
    public enum State: Equatable, Sendable {
        case starting
        case listening(port: Int)
        case failed(String)
        case stopped
    }

    public let name = "remote"
    public let hub: RemoteHub
    /// The listen address as asked for (see ``state`` for the port bound when 0 was asked for).
    public let host: String
    private let askedPort: Int
    private let extraHosts: [String]
    private let channel: ProducerChannel
    private let group: MultiThreadedEventLoopGroup
    private let timer: DeadlineTimer
    private let executor: EventLoopExecutor
    private let logger = Logger(label: "multiscreen.remote")
    private let scheme: String
    private struct Life {
        var state = State.starting
        var baseURL: String?
        var waiting: [CheckedContinuation<State, Never>] = []
        var serverTask: Task<Void, Never>?
        /// The listening socket, once bound: closed first when stopping, so the server's accept loop ends by itself
        /// (cancelled while it waits, HummingbirdCore's `Server` logs the cancellation as an error).
        var listener: (any Channel)?
    }
    private let life = Mutex(Life())
    /// Which `Host` and `Origin` are served: the listen address, with the real port once bound.
    private let hosts: SharedHostPolicy
    /// An offer the ring had no room for, posted again by the timer a second later.
    private let unsent = Mutex<Message?>(nil)
    /// `remote.*` activities the ring had no room for (events are not retried: a later one may already be in).
    private let activitiesDropped = DropCounter()
    private let onDisplay: @Sendable (RemoteDisplay, String) -> Void

    /// Starts serving `host:port` on the remote's own thread and returns at once.
    /// - Throws: ``RemoteError/tls(_:)`` when the certificate or key cannot be loaded (checked here, before any
    ///   thread starts).
    /// - Parameter onDisplay: what the screens should show, whenever it changes (called on the remote's threads).
    public init(
        host: String, port: Int, bus: MessageBus, options: Options = Options(),
        onDisplay: @escaping @Sendable (RemoteDisplay, _ url: String) -> Void = { _, _ in }
    ) throws {
        let tlsConfiguration = try options.tls.map(Self.tlsConfiguration)
        self.host = host
        askedPort = port
        extraHosts = options.extraHosts
        self.onDisplay = onDisplay
        scheme = options.tls == nil ? "http" : "https"
        let receipts = ReceiptBook()
        let channel = ProducerChannel(receipts: receipts)
        channel.attach(to: bus)
        self.channel = channel
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        group.next().execute {
            ClientThreads.nameCallingThread("ms-remote")
            ClientThreads.lowerCallingThread()
        }
        let executor = EventLoopExecutor(group.next())
        self.executor = executor
        timer = DeadlineTimer(loop: group.next())
        let hosts = SharedHostPolicy()
        self.hosts = hosts
        // Every callback below reaches `self` weakly: the hub and the server task belong to it.
        let box = WeakServer()
        let dropped = activitiesDropped
        hub = RemoteHub(
            options: options.hub, sender: channel, receipts: receipts,
            onDisplay: { display in box.server?.show(display) },
            onActivity: { activity in
                if !channel.post(.remoteActivity(activity)) { dropped.count.add(1, ordering: .relaxed) }
            },
            onChange: { box.server?.rearm() })
        box.server = self
        hosts.withLock { $0 = HostPolicy(host: host, port: port, extraHosts: options.extraHosts) }
        let router = RemoteRoutes.router(hub: hub, hosts: { hosts.withLock { $0 } })
        let plain = RemoteRoutes.server(hub: hub, hosts: { hosts.withLock { $0 } })
        let server = try tlsConfiguration.map { try HTTPServerBuilder.tls(plain, tlsConfiguration: $0) } ?? plain
        let publicURL = options.publicURL
        // Not Hummingbird's `Application`: its date cache would wake the idle kiosk every second (RouterServer).
        let http = try RouterServer(
            router: router, server: server, address: .hostname(host, port: port), group: group,
            logger: Logger(label: "multiscreen.remote.http"),
            onServerRunning: { channel in
                box.server?.bound(channel, port: channel.localAddress?.port ?? port, publicURL: publicURL)
            })
        let serverTask = Task(executorPreference: executor) {
            do {
                try await http.run()
                box.server?.ended(nil)
            } catch {
                box.server?.ended("\(error)")
            }
        }
        life.withLock { $0.serverTask = serverTask }
    }

    /// Waits until the address is bound (the port) or binding failed.
    /// - Throws: ``RemoteError/cannotListen(_:_:)`` or ``RemoteError/stopped``.
    @discardableResult
    public func listening() async throws -> Int {
        let outcome: State = await withCheckedContinuation { continuation in
            let now: State? = life.withLock { life in
                if case .starting = life.state {
                    life.waiting.append(continuation)
                    return nil
                }
                return life.state
            }
            if let now { continuation.resume(returning: now) }
        }
        switch outcome {
        case .listening(let port): return port
        case .failed(let why): throw RemoteError.cannotListen(HostPolicy.authority(host, askedPort), why)
        case .starting, .stopped: throw RemoteError.stopped
        }
    }

    public var state: State { life.withLock { $0.state } }

    /// The port bound; nil before (or without) binding.
    public var port: Int? {
        if case .listening(let port) = state { return port }
        return nil
    }

    private func settle(_ state: State) {
        let waiting = life.withLock { life in
            life.state = state
            defer { life.waiting = [] }
            return life.waiting
        }
        for continuation in waiting { continuation.resume(returning: state) }
    }

    /// On the server's thread, once bound: the link is known, so the QR code can go up, and the gate's timer starts.
    private func bound(_ listener: any Channel, port: Int, publicURL: String?) {
        let base = publicURL ?? "\(scheme)://\(HostPolicy.authority(host, port))/"
        if askedPort == 0 {
            hosts.withLock { $0 = HostPolicy(host: host, port: port, extraHosts: extraHosts) }
        }
        life.withLock { life in
            life.baseURL = base
            life.listener = listener
        }
        logger.info("phone remote listening at \(base)")
        timer.start { [weak self] in self?.fire() }
        show(hub.display)
        rearm()
        settle(.listening(port: port))
    }

    private func ended(_ error: String?) {
        let wasStarting = life.withLock { $0.state == .starting }
        if let error {
            if wasStarting {
                logger.error("phone remote cannot listen at \(HostPolicy.authority(host, askedPort)): \(error)")
            } else {
                logger.error("phone remote stopped: \(error)")
            }
            settle(.failed(error))
        } else if wasStarting {
            settle(.failed("the server ended before it was bound"))
        }
    }

    /// The link for a code: the QR code's content (nil until bound).
    public func link(for code: AccessCode) -> String? {
        life.withLock { $0.baseURL }.map { Self.link(base: $0, code: code) }
    }

    static func link(base: String, code: AccessCode) -> String { "\(base)?code=\(code.token)" }

    // MARK: Timer

    /// The gate's limits, applied when the earliest is due; an offer that found the ring full is posted again.
    private func fire() {
        hub.tick()
        unsent.withLock { pending in
            if let message = pending, channel.post(message) { pending = nil }
        }
        rearm()
    }

    /// Arms the timer for the gate's next deadline (a second from now while an offer waits for room).
    private func rearm() {
        var deadline = hub.nextDeadline
        if unsent.withLock({ $0 != nil }) { deadline = min(deadline ?? .infinity, hub.now + 1) }
        timer.arm(at: deadline.map { $0 - hub.now })
    }

    // MARK: Display

    /// Tells the display thread what the external screens show for the remote (through this remote's own
    /// producer, in order with its other messages), and the caller's observer. Before the link is known, nothing.
    private func show(_ display: RemoteDisplay) {
        guard let url = life.withLock({ $0.baseURL }) else { return }
        let offer: Message
        switch display {
        case .code(let code):
            offer = .remoteOffer(link: Self.link(base: url, code: code), code: code.short, locked: false)
        case .inControl: offer = .remoteOffer(link: "", code: "", locked: false)
        case .locked: offer = .remoteOffer(link: "", code: "", locked: true)
        }
        // Under the lock, so a newer offer cannot be posted between this one's check and its post.
        let posted = unsent.withLock { pending in
            let posted = channel.post(offer)
            pending = posted ? nil : offer
            return posted
        }
        if !posted {
            logger.warning("the display is busy: the remote's code goes on screen later")
            rearm()
        }
        onDisplay(display, url)
    }

    // MARK: MessageSource

    public var counters: [String: Int] {
        var counters = hub.counters
        counters["rejectedBusy"] = channel.rejectedFull
        counters["activitiesDropped"] = activitiesDropped.count.load(ordering: .relaxed)
        if let port { counters["port"] = port }
        return counters
    }

    public var notes: [String: String] {
        let (state, base) = life.withLock { ($0.state, $0.baseURL) }
        switch state {
        case .starting: return ["state": "starting"]
        case .listening: return ["state": "listening", "url": base ?? ""]
        case .failed(let why): return ["state": "failed", "lastError": why]
        case .stopped: return ["state": "stopped"]
        }
    }

    /// Stops serving, closes every connection, the timer and the producer. Idempotent; blocks until the server's
    /// task has ended (at most 5 s): for the thread that owns the remote (the display thread at shutdown), never a
    /// task's thread, which the server's own tasks may need. From async code, use ``shutdown()``.
    public func stop() {
        guard let taken = takeServerTask() else { return }
        let (task, listener) = taken
        if let listener, !listener.eventLoop.inEventLoop {
            try? listener.close().wait()
            try? listener.closeFuture.wait()
        }
        task.cancel()
        let done = DispatchSemaphore(value: 0)
        // On the remote's thread, like the server: a task on the global executor would start libdispatch's workers.
        Task(executorPreference: executor) {
            await task.value
            done.signal()
        }
        if done.wait(timeout: .now() + 5) == .timedOut { logger.warning("phone remote did not stop within 5 s") }
        finish()
    }

    /// ``stop()`` for async code: waits for the server's task without blocking a thread.
    public func shutdown() async {
        guard let taken = takeServerTask() else { return }
        let (task, listener) = taken
        try? await listener?.close()
        try? await listener?.closeFuture.get()
        task.cancel()
        await task.value
        finish()
    }

    /// The server's task and its listening socket (nil before it is bound), taken once: the caller closes the
    /// socket, waits until it has closed (the accept loop has its end by then), then cancels the task, which ends the
    /// open connections.
    private func takeServerTask() -> (Task<Void, Never>, (any Channel)?)? {
        let taken = life.withLock { life in
            defer {
                life.serverTask = nil
                life.listener = nil
            }
            return life.serverTask.map { ($0, life.listener) }
        }
        timer.stop()
        return taken
    }

    private func finish() {
        settle(.stopped)
        // Nothing to scan once the remote is gone.
        channel.post(.remoteOffer(link: "", code: "", locked: false))
        channel.close()
        executor.close()
        try? group.syncShutdownGracefully()
        logger.info("phone remote stopped")
    }

    deinit { stop() }

    static func tlsConfiguration(_ files: TLSFiles) throws -> TLSConfiguration {
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(files.certificate)
            guard !chain.isEmpty else { throw RemoteError.tls("\(files.certificate): no certificate in it") }
            let key = try NIOSSLPrivateKey(file: files.key, format: .pem)
            return TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        } catch let error as RemoteError {
            throw error
        } catch {
            throw RemoteError.tls("cannot load \(files.certificate) and \(files.key): \(error)")
        }
    }
}

private final class SharedHostPolicy: Sendable {
    private let policy = Mutex(HostPolicy(allowedAuthorities: []))
    func withLock<T>(_ body: (inout HostPolicy) -> T) -> T { policy.withLock { body(&$0) } }
}

private final class DropCounter: Sendable {
    let count = Atomic<Int>(0)
}

/// The server, held weakly by the callbacks it hands out (they outlive no one, but must not keep it alive).
private final class WeakServer: @unchecked Sendable {
    weak var server: PhoneRemoteServer?
}

public enum RemoteError: Error, CustomStringConvertible {
    case cannotListen(String, String)
    case stopped
    case tls(String)

    public var description: String {
        switch self {
        case .cannotListen(let address, let why): "cannot listen at \(address): \(why)"
        case .stopped: "the server stopped"
        case .tls(let why): "TLS: \(why)"
        }
    }
}
