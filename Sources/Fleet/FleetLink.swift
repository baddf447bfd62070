import CLinux
import Logging
import Messaging
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// The kiosk's link to the fleet broker: one more ``MessageSource`` on the bus, with its own ``RequestIntake``.
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
/// `…/<kiosk>/events`, and each `playlist.played` also on `…/<kiosk>/history` at QoS 1 (held with the replies
/// while the broker is unreachable). It reads the retained playlist documents of the kiosk, its groups and the site
/// (`…/playlist`, ``DesiredPlaylist``) and applies the most specific one as `playlist.set` requests through the same
/// gate and intake as a command, at every connection and every change (``PlaylistDesiredState``). A broker that
/// refuses us is logged with the broker's reason and counted (`refusals`, `lastRefusal`); the screens never wait
/// for the broker.
public final class FleetLink: MessageSource, Sendable {
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
        /// Replies and proof-of-play records held while the broker is unreachable; older ones are dropped (and
        /// counted: `repliesDropped`, `historyDropped`) beyond this.
        public var outboxLimit = 4096
        /// Reported in the retained status.
        public var version = "unknown"
        /// Where the link's own lines go.
        public var logger = Logger(label: "multiscreen.fleet")

        public init() {}
    }

    public let name = "fleet"
    public let config: FleetConfig
    private let mailbox: Mailbox<FleetMail>
    private let shared = FleetShared()
    private let intake: RequestIntake<FleetRequestTag>
    private let thread = LoopThread()
    private let logger: Logger

    /// Creates the MQTT client and starts its thread; connecting happens there (a broker that is down is retried,
    /// never an error here).
    /// - Throws: ``FleetConfigError`` for unusable settings (credentials file, TLS files), ``MosquittoError``.
    public init(config: FleetConfig, bus: MessageBus, options: Options = Options()) throws {
        self.config = config
        logger = options.logger
        try config.validate()
        do {
            mailbox = try Mailbox()
        } catch {
            throw FleetConfigError("eventfd failed: \(error)")
        }
        let mailbox = mailbox
        intake = RequestIntake(
            bus: bus, capacity: options.producerCapacity,
            outlet: .init(
                reply: { tag, reply in mailbox.post(.reply(tag, reply)) }, wantsEvents: { true },
                publish: { event in mailbox.post(.event(event)) }))
        let loop: FleetLoop
        do {
            loop = try FleetLoop(
                config: config, options: options, intake: intake, mailbox: mailbox, shared: shared, logger: logger)
        } catch {
            _ = intake.close()  // the display thread forgets an empty closed ring
            throw error
        }
        do {
            try thread.start(name: "ms-fleet", niceness: ClientThreads.niceness) { loop.run() }
        } catch {
            _ = intake.close()
            throw FleetConfigError("cannot start the fleet thread: \(String(cString: strerror(error.errno)))")
        }
        logger.info(
            "fleet link to \(config.broker) as \(config.site)/\(config.kiosk)",
            metadata: ["groups": "\(config.groups.joined(separator: ","))", "allow": "\(config.allow)"])
    }

    deinit { stop() }

    // MARK: MessageSource

    public var counters: [String: Int] { shared.counters.withLock { $0 } }

    /// `broker`, `state` (connecting, connected, retrying, refused, stopped) and `lastError` (the broker's refusal
    /// or why the connection failed), in words.
    public var notes: [String: String] { shared.notes.withLock { $0 } }

    /// Publishes `online = false` (retained), disconnects cleanly, joins the thread and closes the producer.
    public func stop() {
        guard thread.stop(asking: mailbox.requestStop) else { return }
        _ = intake.close()
        logger.info("fleet link closed", metadata: ["counters": "\(counters)"])
    }
}

/// What the display thread hands the fleet thread: a reply with what it answers, or an event.
enum FleetMail: Sendable {
    case reply(FleetRequestTag, Reply)
    case event(Event)
}

/// What a request in the link's ring belongs to: an operator's request (answered in its envelope on the reply
/// topic), the link's own `status` read that refreshes the retained status, or a `playlist.set`/`playlist.clear`
/// that a retained playlist document asked for (answered to nobody: counted, and logged when refused).
enum FleetRequestTag: Sendable {
    case request(Envelope)
    case statusRefresh
    case desiredPlaylist(topic: String, method: MessageMethod, screen: String)
}

/// What the fleet thread publishes for `status`, once per wakeup.
final class FleetShared: Sendable {
    let counters = Mutex<[String: Int]>([:])
    let notes = Mutex<[String: String]>([:])
}
