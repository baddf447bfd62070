import Logging
import Messaging
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// The local control socket: a thread that accepts connections on a Unix stream socket, reads one JSON request per
/// line, passes each through the ``RequestGate`` into its ``RequestIntake``, and writes the display thread's replies
/// back, one per line, in request order per connection.
///
/// It is one ``MessageSource`` among others: the display thread drains its messages and answers through
/// `received.replyTo` (the intake), without knowing a socket is behind it.
/// ```swift
/// let server = try ControlServer(path: ControlSocket.defaultPath(display: name, environment: environment), bus: bus)
/// consumer.drain { received in received.replyTo?.deliver(execute(received.message)) }
/// consumer.publish(.roleChanged(screen: "HDMI-A-1", from: "external", to: "controller"))  // to subscribers
/// server.stop()                                    // at exit
/// ```
///
/// Events go to the connections that sent `events.subscribe` (see ``ControlEvents``), which this server answers
/// itself: a subscription is the connection's state, not the display thread's.
///
/// Why a thread and not the display loop's `poll`: a client may send 400 KB or never read its replies; neither may
/// cost the display thread a frame. The server thread sleeps in `poll` on the listener, its clients and an eventfd.
///
/// Security: the socket is created 0600 (its mode set before `bind`, fixed before `listen`, so nothing can connect
/// while it is wider), in a 0700 directory by default, and every accepted peer's uid is checked (`SO_PEERCRED`).
public final class ControlServer: MessageSource, Sendable {
    public struct Options: Sendable {
        /// The only uid served; others get one error line and are closed. Default: our effective uid.
        public var allowedUID: UInt32 = geteuid()
        /// Messages in flight to the display thread; beyond that, requests are answered `busy`.
        public var producerCapacity = 1024
        /// Connections served at once; one more is answered `busy` and closed.
        public var maximumConnections = 64
        /// Requests of one connection waiting for the display thread at once. A client that pipelines more is read
        /// no further until replies come back, so one connection cannot fill the ring all of them share. With the
        /// defaults, every connection's share together (64 × 8) is half the ring; the other half is room for the
        /// batch the display thread is still answering (its slots are freed after the batch, not at each reply),
        /// so connections alone never make another client's request `busy`.
        public var maximumRequestsInFlight = 8
        /// Unsent reply bytes at which a connection stops being read until its peer catches up.
        public var outputBufferLimit = 1 << 20
        /// Seconds a connection may stay open with nothing to do (no request in flight, no reply unsent, not
        /// subscribed to events) before it is closed, so idle clients cannot hold every connection slot.
        public var idleTimeout: Double = 30

        public init() {}
    }

    /// The socket's path.
    public let path: String
    public let name = "control"
    /// Replies and events for the server thread.
    let mailbox: Mailbox<ControlMail>
    let shared = ControlShared()
    private let intake: RequestIntake<ControlRequestTag>
    private let thread = LoopThread()
    private let logger = Logger(label: "multiscreen.control")

    /// Binds and listens at `path` (removing a stale socket file there), then starts the server thread.
    /// - Throws: ``ControlError/alreadyListening(path:)`` when another instance answers at `path`; the other cases
    ///   of ``ControlError`` for a path that cannot be used.
    public init(path: String, bus: MessageBus, options: Options = Options()) throws(ControlError) {
        self.path = path
        do {
            mailbox = try Mailbox()
        } catch {
            throw .system(operation: "eventfd for", path: "the control server", errno: error.errno)
        }
        let listener = try Self.listen(at: path)
        let (mailbox, shared) = (mailbox, shared)
        intake = RequestIntake(
            bus: bus, capacity: options.producerCapacity,
            outlet: .init(
                reply: { tag, reply in mailbox.post(.reply(tag, reply)) },
                wantsEvents: { shared.subscribers.load(ordering: .relaxed) > 0 },
                publish: { event in
                    shared.eventsPublished.add(1, ordering: .relaxed)
                    // A subscriber whose subscription reply has been written is counted already (the server thread
                    // stores the count before writing the reply), so an event published after a client saw that
                    // reply is delivered to it.
                    guard shared.subscribers.load(ordering: .acquiring) > 0 else { return }
                    mailbox.post(.event(MessageCodec.encode(event)))
                }))
        let loop = ControlLoop(
            path: path, listener: listener.descriptor, socketIdentity: listener.identity, intake: intake,
            mailbox: mailbox, shared: shared, options: options, logger: logger)
        do {
            try thread.start(name: "ms-control", niceness: ClientThreads.niceness) { loop.run() }
        } catch {
            loop.closeEverything()
            _ = intake.close()
            throw .system(operation: "pthread_create for", path: path, errno: error.errno)
        }
        logger.info("control socket listening at \(path)")
    }

    deinit { stop() }

    // MARK: Events

    /// What the display thread does through the producer's sink: an event for every connection subscribed to events
    /// (``ControlEvents``). The server thread writes it to each
    /// subscriber after what is already queued for it, never blocking: a subscriber that does not read has its
    /// events dropped and counted.
    ///
    /// Thread-safe. With nobody subscribed it is two atomic operations and no syscall; otherwise a lock and at
    /// most one eventfd write per server wakeup. Events published from one thread reach each subscriber in
    /// publish order. After ``stop()`` it does nothing.
    public func publish(_ event: Event) { intake.publish(event) }

    /// Whether any connection is subscribed to events now. One atomic load.
    public var hasSubscribers: Bool { shared.subscribers.load(ordering: .relaxed) > 0 }

    // MARK: MessageSource

    /// The counters, as `status` shows them under "control".
    public var counters: [String: Int] {
        let c = statistics
        return [
            "requests": c.requests, "replies": c.replies, "rejectedBusy": c.rejectedBusy, "malformed": c.malformed,
            "peerRejected": c.peerRejected, "connectionsRefusedBusy": c.connectionsRefusedBusy,
            "repliesDroppedClosedConnection": c.repliesDroppedClosedConnection,
            "subscribers": c.subscribers, "eventsPublished": c.eventsPublished, "eventsDropped": c.eventsDropped,
            "idleClosed": c.idleClosed, "acceptPaused": c.acceptPaused,
            "acceptedOnReserve": c.acceptedOnReserve,
        ]
    }

    /// The counters so far (updated once per server wakeup; `subscribers` and `eventsPublished` at once).
    public var statistics: ControlStatistics {
        var statistics = shared.statistics.withLock { $0 }
        statistics.subscribers = shared.subscribers.load(ordering: .relaxed)
        statistics.eventsPublished = shared.eventsPublished.load(ordering: .relaxed)
        return statistics
    }

    /// Closes the listener and every connection, unlinks the socket, joins the thread and closes the producer
    /// (the display thread still drains what is in the ring; its replies are ignored). Idempotent.
    public func stop() {
        guard thread.stop(asking: mailbox.requestStop) else { return }
        // Requests still in the ring are answered to nobody: their connections are closed.
        _ = intake.close()
        let statistics = self.statistics
        logger.info(
            "control socket closed at \(path)",
            metadata: [
                "requests": "\(statistics.requests)", "replies": "\(statistics.replies)",
                "busy": "\(statistics.rejectedBusy)", "malformed": "\(statistics.malformed)",
                "peerRejected": "\(statistics.peerRejected)", "refusedBusy": "\(statistics.connectionsRefusedBusy)",
                "dropped": "\(statistics.repliesDroppedClosedConnection)",
                "eventsPublished": "\(statistics.eventsPublished)", "eventsDropped": "\(statistics.eventsDropped)",
            ])
    }

    /// The device and inode of the socket file we bound, so shutdown unlinks ours and not a successor's.
    struct SocketIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    private static func listen(at path: String) throws(ControlError) -> (descriptor: Int32, identity: SocketIdentity) {
        try makeParentDirectory(of: path)
        try removeStaleSocket(at: path)
        let descriptor = try ControlSocket.makeSocket(path: path)
        do throws(ControlError) {
            // Linux creates the socket file with the socket inode's mode masked by the umask: 0600 from the start.
            try ControlError.call("fchmod", path) { fchmod(descriptor, 0o600) }
            let bound = try ControlSocket.withAddress(path) { address, length in
                Result { () throws(ControlError) in
                    try ControlError.call("bind", path) { bind(descriptor, address, length) }
                }
            }
            try bound.get()
            // The umask may have narrowed 0600 further (0400); make it exactly 0600. Not yet listening, so no peer
            // can connect in between.
            try ControlError.call("chmod", path) { chmod(path, 0o600) }
            var status = stat()
            try ControlError.call("stat", path) { lstat(path, &status) }
            try ControlError.call("listen", path) { Glibc.listen(descriptor, 64) }
            return (descriptor, SocketIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)))
        } catch {
            close(descriptor)
            // Only a bound socket left a file behind; the file at the path before `bind` is not ours.
            if case .system(let operation, _, _) = error, !["fchmod", "bind"].contains(operation) { unlink(path) }
            throw error
        }
    }

    /// Creates the socket's directory 0700 if it is missing (one level: `$XDG_RUNTIME_DIR/multiscreen`).
    private static func makeParentDirectory(of path: String) throws(ControlError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let parent = String(path[..<slash])
        do {
            try systemCall("mkdir") { mkdir(parent, 0o700) }
        } catch  where error.errno == EEXIST {
            return
        } catch {
            throw .system(operation: "mkdir", path: parent, errno: error.errno)
        }
    }

    /// A socket file nobody answers at is left over from a crash: remove it. One that answers belongs to a live
    /// instance. Anything else at the path is not ours.
    private static func removeStaleSocket(at path: String) throws(ControlError) {
        var status = stat()
        do {
            try systemCall("stat") { lstat(path, &status) }
        } catch  where error.errno == ENOENT {
            return
        } catch {
            throw .system(operation: "stat", path: path, errno: error.errno)
        }
        guard (status.st_mode & S_IFMT) == S_IFSOCK else { throw .notASocket(path: path) }
        switch try ControlSocket.connect(to: path) {
        case .success(let descriptor):
            close(descriptor)
            throw .alreadyListening(path: path)
        case .failure(let error) where error.errno == ECONNREFUSED:
            Logger(label: "multiscreen.control").notice("removing stale control socket \(path)")
            do {
                try systemCall("unlink") { unlink(path) }
            } catch  where error.errno == ENOENT {
                return
            } catch {
                throw .system(operation: "unlink", path: path, errno: error.errno)
            }
        case .failure(let error) where error.errno == EAGAIN:
            // The listener's backlog is full: someone is listening.
            throw .alreadyListening(path: path)
        case .failure(let error):
            throw .system(operation: "connect", path: path, errno: error.errno)
        }
    }
}
