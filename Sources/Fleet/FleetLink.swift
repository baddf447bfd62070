import CLinux
import Logging
import Messaging
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// The kiosk's link to the fleet broker: one more ``MessageSource`` on the bus, and its own ``ReplySink``.
///
/// A thread of its own owns the MQTT connection (libmosquitto, driven by our `poll` loop rather than
/// `mosquitto_loop_start`, so every callback runs on that thread and reconnects follow our backoff). It subscribes
/// with QoS 1 and a persistent session (clean session off, client id = the kiosk's name) to the kiosk's, its
/// groups' and the site's `cmd` topics, so commands published while the kiosk or its connection is down arrive
/// when it is back. Each request `{"id", "method", "params"}` is checked (the id, the allowed methods), decoded
/// with ``MessageCodec`` exactly as the local socket decodes it, deduplicated by id, and sent through the link's
/// producer; the display thread's replies come back through ``deliver(_:)`` in request order and are published on
/// `…/<kiosk>/reply` with their request's id.
///
/// The link also keeps `…/<kiosk>/online` (retained; `true` on connect, `false` through the last will or an
/// orderly stop) and `…/<kiosk>/status` (retained: the `status` document plus site, kiosk, groups, version and
/// uptime, refreshed after events at most ``Options/statusInterval`` apart), and publishes every event on
/// `…/<kiosk>/events`. A broker that refuses us is logged with the broker's reason and counted (`refusals`,
/// `lastRefusal`); the screens never wait for the broker.
public final class FleetLink: ReplySink, MessageSource {
    public struct Options: Sendable {
        /// Messages in flight to the display thread; beyond that, requests are answered `busy`.
        public var producerCapacity = 1024
        /// Request ids remembered for deduplication (a redelivered command is applied at most once).
        public var dedupeWindow = 10_000
        /// The first reconnect delay and the cap of its doubling (seconds); each delay is jittered to 50-100 %.
        public var reconnectInitial = 0.25
        public var reconnectMaximum = 30.0
        /// The shortest interval between two retained status updates (seconds).
        public var statusInterval = 0.25
        /// The status is refreshed at least this often (uptime, frame figures), in seconds.
        public var statusHeartbeat = 60.0
        /// Replies held while the broker is unreachable; older ones are dropped (and counted) beyond this.
        public var outboxLimit = 4096
        /// Reported in the retained status.
        public var version = "unknown"
        /// Where the link's own lines go.
        public var logger = Logger(label: "multiscreen.fleet")

        public init() {}
    }

    public let name = "fleet"
    public let config: FleetConfig
    private let mailbox: FleetMailbox
    private let producer = Mutex<MessageProducer?>(nil)
    private let thread = LoopThread()
    private let logger: Logger

    /// Creates the MQTT client and starts its thread; connecting happens there (a broker that is down is retried,
    /// never an error here).
    /// - Throws: ``FleetConfigError`` for unusable settings (credentials file, TLS files), ``MosquittoError``.
    public init(config: FleetConfig, bus: MessageBus, options: Options = Options()) throws {
        self.config = config
        logger = options.logger
        try config.validate()
        mailbox = try FleetMailbox()
        let producer = bus.makeProducer(capacity: options.producerCapacity, sink: self)
        let loop: FleetLoop
        do {
            loop = try FleetLoop(config: config, options: options, producer: producer, mailbox: mailbox, logger: logger)
        } catch {
            producer.close()  // the display thread forgets an empty closed ring
            throw error
        }
        self.producer.withLock { $0 = producer }
        do {
            try thread.start(name: "ms-fleet", niceness: ClientThreads.niceness) { loop.run() }
        } catch {
            producer.close()
            throw FleetConfigError("cannot start the fleet thread: \(String(cString: strerror(error.errno)))")
        }
        logger.info(
            "fleet link to \(config.broker) as \(config.site)/\(config.kiosk)",
            metadata: ["groups": "\(config.groups.joined(separator: ","))", "allow": "\(config.allow)"])
    }

    deinit { stop() }

    // MARK: ReplySink

    /// The display thread's reply to the oldest request from this link: queued for the fleet thread.
    public func deliver(_ reply: Reply) { mailbox.post(reply: reply) }

    /// Events become `…/events` messages and a status refresh.
    public var wantsEvents: Bool { true }

    public func publish(_ event: Event) { mailbox.post(event: event) }

    // MARK: MessageSource

    public var counters: [String: Int] { mailbox.counters.withLock { $0 } }

    /// `broker`, `state` (connecting, connected, retrying, refused, stopped) and `lastError` (the broker's refusal
    /// or why the connection failed), in words.
    public var notes: [String: String] { mailbox.notes.withLock { $0 } }

    /// Publishes `online = false` (retained), disconnects cleanly, joins the thread and closes the producer.
    public func stop() {
        guard thread.stop(asking: mailbox.requestStop) else { return }
        producer.withLock { producer in
            producer?.close()
            producer = nil
        }
        logger.info("fleet link closed", metadata: ["counters": "\(counters)"])
    }
}

/// What the display thread hands the fleet thread: replies, events, and the request to stop. A lock and an
/// eventfd, written only when the inbox goes from empty to not empty.
final class FleetMailbox: Sendable {
    struct Inbox {
        var replies: [Reply] = []
        var events: [Event] = []
        var stopping = false
        var signalled = false
    }

    let wakeDescriptor: Int32
    private let inbox = Mutex(Inbox())
    /// Published by the fleet thread once per wakeup, read by `status`.
    let counters = Mutex<[String: Int]>([:])
    let notes = Mutex<[String: String]>([:])

    init() throws(FleetConfigError) {
        wakeDescriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        if wakeDescriptor < 0 { throw FleetConfigError("eventfd failed: \(String(cString: strerror(errno)))") }
    }

    deinit { close(wakeDescriptor) }

    func post(reply: Reply) { post { $0.replies.append(reply) } }
    func post(event: Event) { post { $0.events.append(event) } }
    func requestStop() { post { $0.stopping = true } }

    private func post(_ change: (inout Inbox) -> Void) {
        let wake = inbox.withLock { inbox in
            change(&inbox)
            defer { inbox.signalled = true }
            return !inbox.signalled
        }
        if wake {
            var one: UInt64 = 1
            _ = write(wakeDescriptor, &one, 8)
        }
    }

    func take() -> Inbox {
        var counter: UInt64 = 0
        _ = read(wakeDescriptor, &counter, 8)
        return inbox.withLock { inbox in
            defer { inbox = Inbox(stopping: inbox.stopping) }
            return inbox
        }
    }
}
