import Foundation
import Logging
import Messaging

#if canImport(Glibc)
    import Glibc
#endif

/// The fleet thread: the MQTT connection, requests in, replies and events out. Everything here belongs to that
/// thread; requests go through the ``RequestIntake``, replies and events come back through the ``Mailbox``.
final class FleetLoop {
    private enum Connection {
        case idle(retryAt: Double)
        case connecting(since: Double)
        case connected(since: Double)
    }

    private let config: FleetConfig
    private let options: FleetLink.Options
    private let topics: FleetTopics
    private let intake: RequestIntake<FleetRequestTag>
    private let mailbox: Mailbox<FleetMail>
    private let shared: FleetShared
    /// The config's allow-list; events are published, never subscribed to; replies share a topic, so ids are needed.
    private let gate: RequestGate
    private let logger: Logger
    private let client: Mosquitto
    private let startedAt = Date()

    private var connection = Connection.idle(retryAt: 0)
    /// Reconnects back off, and start over after a connection that held ``stableConnection`` seconds.
    private lazy var retries = RetrySchedule(
        initial: options.reconnectInitial, maximum: options.reconnectMaximum, jitter: 0.5...1.0,
        stable: Self.stableConnection)
    private var stopping = false
    private var seenIDs: Set<String> = []
    private var seenOrder: [String] = []
    private var seenHead = 0
    private var outbox: [(topic: String, payload: [UInt8], retain: Bool)] = []
    /// The retained playlist documents and what they asked of the screens.
    private var playlists: PlaylistDesiredState
    /// Whether the previous run's retained status (which screens it gave a playlist document) was read.
    private var previousStatusRead = false
    private var statusDirty = true
    private var statusInFlight = false
    private var lastStatusAt = -Double.infinity
    /// Published with the counters (``FleetLink/notes``).
    private var notes: [String: String] = [:]
    private var stats: [String: Int] = [
        "connected": 0, "connects": 0, "disconnects": 0, "refusals": 0, "lastRefusal": 0, "requests": 0,
        "replies": 0, "duplicates": 0, "notAllowed": 0, "malformed": 0, "rejectedBusy": 0, "eventsPublished": 0,
        "eventsDropped": 0, "statusPublished": 0, "repliesDropped": 0, "outbox": 0, "historyPublished": 0,
        "historyDropped": 0, "playlistSets": 0, "playlistClears": 0, "playlistMalformed": 0, "playlistNotAllowed": 0,
        "playlistFailed": 0,
    ]

    init(
        config: FleetConfig, options: FleetLink.Options, intake: RequestIntake<FleetRequestTag>,
        mailbox: Mailbox<FleetMail>, shared: FleetShared, logger: Logger
    ) throws {
        self.config = config
        self.options = options
        topics = config.topics
        playlists = PlaylistDesiredState(topics: config.topics.playlists(groups: config.groups))
        gate = RequestGate(
            methods: config.gate, events: .elsewhere("are published on \(topics.events)"), requiresID: true)
        self.intake = intake
        self.mailbox = mailbox
        self.shared = shared
        self.logger = logger
        client = try Mosquitto(clientID: config.kiosk, cleanSession: false)
        try client.setWill(topic: topics.online, payload: "false", qos: 1, retain: true)
        if let credentials = try config.credentials() {
            try client.setCredentials(username: credentials.username, password: credentials.password)
        }
        if config.broker.tls {
            try client.setTLS(caFile: config.caFile, certFile: config.certFile, keyFile: config.keyFile)
        }
        notes = ["broker": config.broker.description, "state": "connecting", "playlist": "none"]
        client.onConnect = { [unowned self] code in connected(code) }
        client.onDisconnect = { [unowned self] code in lost("\(MosquittoError("connection", code: code))") }
        client.onMessage = { [unowned self] message in received(message) }
        publishCounters()
    }

    private var now: Double { MonotonicClock.seconds() }

    func run() {
        var descriptors: [pollfd] = []
        while true {
            let socket = client.socket
            let live: Bool
            switch connection {
            case .idle: live = false
            case .connecting, .connected: live = socket >= 0
            }
            descriptors.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: mailbox.wakeDescriptor, events: Int16(POLLIN), revents: 0))
            if live {
                var events = Int16(POLLIN)
                if client.wantsWrite { events |= Int16(POLLOUT) }
                descriptors.append(pollfd(fd: socket, events: events, revents: 0))
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds())
            if ready < 0 && errno != EINTR {
                logger.critical("fleet poll failed: \(String(cString: strerror(errno))); the fleet link stops")
                return
            }
            if descriptors[0].revents != 0 {
                let inbox = mailbox.take()
                var events: [Event] = []
                for item in inbox.items {
                    switch item {
                    case .reply(let tag, let reply): answer(reply, to: tag)
                    case .event(let event): events.append(event)
                    }
                }
                publish(events)
                if inbox.stopping {
                    shutDown()
                    return
                }
            }
            if live && descriptors.count > 1 {
                let revents = Int32(descriptors[1].revents)
                do throws(MosquittoError) {
                    if revents & (POLLIN | POLLHUP | POLLERR) != 0 { try client.loopRead() }
                    if revents & POLLOUT != 0 { try client.loopWrite() }
                } catch {
                    lost("\(error)")
                }
            }
            housekeeping()
            publishCounters()
        }
    }

    /// Keep-alive, connection attempts and timeouts, status refreshes: whatever is due now.
    private func housekeeping() {
        let time = now
        switch connection {
        case .idle(let retryAt) where time >= retryAt:
            attempt()
        case .connecting(let since) where time - since > 10:
            lost("no answer from the broker within 10 s")
        case .connected:
            do throws(MosquittoError) { try client.loopMisc() } catch { lost("\(error)") }
        default:
            break
        }
        if case .connected = connection, !statusInFlight {
            let due = statusDirty || time - lastStatusAt >= options.statusHeartbeat
            if due && time - lastStatusAt >= options.statusInterval { requestStatus() }
        }
    }

    private func timeoutMilliseconds() -> Int32 {
        let time = now
        var wait = 1.0  // keep-alive pings (libmosquitto's loop_misc) need a look at least this often
        switch connection {
        case .idle(let retryAt): wait = min(wait, max(0, retryAt - time))
        case .connecting: break
        case .connected:
            if statusDirty && !statusInFlight {
                wait = min(wait, max(0, lastStatusAt + options.statusInterval - time))
            }
        }
        return Int32((wait * 1000).rounded(.up))
    }

    // MARK: Connection

    private func attempt() {
        connection = .connecting(since: now)
        if notes["state"] != "refused" { notes["state"] = "connecting" }
        do throws(MosquittoError) {
            try client.connect(host: config.broker.host, port: config.broker.port, keepAlive: config.keepAlive)
        } catch {
            lost("\(error)")
        }
    }

    private func connected(_ code: Int32) {
        guard code == 0 else {
            stats["refusals", default: 0] += 1
            stats["lastRefusal"] = Int(code)
            // The same refusal every few seconds would fill the journal: the first of a streak at error, then debug.
            let level: Logger.Level = retries.failures == 0 || stats["refusals"] == 1 ? .error : .debug
            let reason = Mosquitto.connackDescription(code)
            notes["state"] = "refused"
            notes["lastError"] = "the broker refused the connection: \(reason) (CONNACK \(code))"
            logger.log(
                level: level,
                "the broker \(config.broker) refused the fleet link: \(reason) (CONNACK \(code)); the screens keep running, retrying with backoff"
            )
            client.disconnect()
            scheduleRetry()
            return
        }
        let wasLost = stats["connects", default: 0] > 0
        connection = .connected(since: now)
        notes["state"] = "connected"
        stats["connects", default: 0] += 1
        stats["connected"] = 1
        stats["lastRefusal"] = 0
        logger.info(
            "fleet link \(wasLost ? "reconnected" : "connected") to \(config.broker)",
            metadata: ["kiosk": "\(config.kiosk)", "site": "\(config.site)"])
        do throws(MosquittoError) {
            for topic in topics.commands(groups: config.groups) { try client.subscribe(topic, qos: 1) }
            // The previous run's retained status says which screens it gave a playlist document: read once, before
            // the documents arrive, so a document withdrawn while the kiosk was stopped still clears them. Our own
            // later updates need not come back: unsubscribed at once (the broker has sent the retained one by then).
            if stats["connects"] == 1 { try client.subscribe(topics.status, qos: 1) }
            // Desired state, not commands: the broker hands over the retained documents at every subscription, so
            // the one in force is applied again at each connection (idempotent: the wall clock picks the item).
            // Most specific first, so the kiosk's own arrives before its groups' and the site's.
            for topic in playlists.topics { try client.subscribe(topic, qos: 1) }
            try client.unsubscribe(topics.status)
            try client.publish(topic: topics.online, payload: Array("true".utf8), qos: 1, retain: true)
            // Our own presence, watched after it is published: anything else retained there while we are connected
            // (someone's spoofed "false") is corrected at once, or operators would see this kiosk offline for good.
            try client.subscribe(topics.online, qos: 1)
        } catch {
            lost("\(error)")
            return
        }
        let held = outbox
        outbox.removeAll()
        for message in held { send(topic: message.topic, payload: message.payload, retain: message.retain) }
        statusDirty = true
    }

    /// The connection is gone (or never came): forget it and try again later.
    private func lost(_ reason: String) {
        if case .idle = connection { return }
        if stopping { return }
        var lasted = 0.0
        if case .connected(let since) = connection {
            stats["disconnects", default: 0] += 1
            logger.warning("fleet link lost: \(reason); reconnecting")
            // A connection that held starts the backoff again; one dropped at once (a kiosk name used twice, a
            // broker that closes us after the CONNACK) keeps backing off instead of reconnecting 4 times a second.
            lasted = now - since
        } else if retries.failures == 0 {
            logger.warning("fleet link cannot reach \(config.broker): \(reason); retrying with backoff")
        } else {
            logger.debug("fleet link attempt \(retries.failures + 1) failed: \(reason)")
        }
        stats["connected"] = 0
        notes["state"] = "retrying"
        notes["lastError"] = reason
        scheduleRetry(afterLasting: lasted)
    }

    /// Seconds a connection must last for the reconnect backoff to start from the beginning again.
    static let stableConnection = 10.0

    private func scheduleRetry(afterLasting lasted: Double = 0) {
        let delay = retries.failed(afterLasting: lasted)
        stats["connected"] = 0
        connection = .idle(retryAt: now + delay)
    }

    private func shutDown() {
        stopping = true
        if case .connected = connection {
            _ = try? client.publish(topic: topics.online, payload: Array("false".utf8), qos: 1, retain: true)
            client.disconnect()
            // Hand the last packets to the socket: a second at most, the kiosk is stopping.
            let deadline = now + 1
            while client.wantsWrite && now < deadline {
                var descriptor = pollfd(fd: client.socket, events: Int16(POLLOUT), revents: 0)
                if poll(&descriptor, 1, 100) > 0 { try? client.loopWrite() } else { break }
            }
        }
        stats["connected"] = 0
        notes["state"] = "stopped"
        publishCounters()
    }

    // MARK: Requests

    private func received(_ message: MosquittoMessage) {
        if message.topic == topics.online {
            guard message.payload != Array("true".utf8), case .connected = connection else { return }
            stats["onlineCorrected", default: 0] += 1
            logger.notice("fleet: someone else published this kiosk's presence; publishing online = true again")
            send(topic: topics.online, payload: Array("true".utf8), retain: true)
            return
        }
        if playlists.topics.contains(message.topic) {
            receivedPlaylist(message)
            return
        }
        if message.topic == topics.status {
            if message.retained && !previousStatusRead {
                previousStatusRead = true
                restorePlaylists(fromStatus: message.payload)
            }
            return
        }
        stats["requests", default: 0] += 1
        let admission = gate.admit(message.payload)
        // Replies share one topic: one without an id still says so (`"id": null`), so no operator takes it for theirs.
        let envelope =
            admission.envelope.id == nil && admission.envelope == .plain ? .tagged(id: .null) : admission.envelope
        if message.retained {
            // A retained command would be applied again by every kiosk at every start: refuse it (the broker keeps
            // it until someone publishes an empty retained message on the topic).
            refuse(
                MessageError(
                    .invalidRequest, "retained commands are refused (they would be applied again at every start)"),
                in: envelope, topic: message.topic, payload: message.payload)
            return
        }
        switch admission {
        case .refused(let error, _):
            refuse(error, in: envelope, topic: message.topic, payload: message.payload)
        case .subscribe:
            preconditionFailure("the fleet's gate never admits events.subscribe")
        case .message(let command, _, _):
            // Admitted with an id, which is the retry key: an operator's resend after a lost reply, or the broker's
            // redelivery, is answered with the first reply and not applied again.
            let key = envelope.id?.serialized ?? "null"
            if seenIDs.contains(key) {
                stats["duplicates", default: 0] += 1
                logger.debug("fleet request \(key.logSafe) seen before: answered with its first reply")
            }
            if let refusal = intake.submit(command, requestID: Self.requestID(for: key), tag: .request(envelope)) {
                refuse(refusal, in: envelope, topic: message.topic, payload: message.payload)
            } else {
                remember(key)
            }
        }
    }

    /// Answers a refusal, counted by reason; the first few of each reason are logged (a flood cannot fill the log).
    private func refuse(_ error: MessageError, in envelope: Envelope, topic: String, payload: [UInt8]) {
        let counter = RequestGate.counter(for: error)
        let what = counter == "malformed" ? "malformed fleet request" : "fleet request refused"
        count(counter, logging: "\(what) on \(topic): \(error)", start: payload)
        reply(.error(error), in: envelope)
    }

    /// The request id a fleet request's `id` (any JSON string or integer) becomes on the way to the display thread.
    static func requestID(for key: String) -> String { MessageCodec.requestID(key, prefix: "fleet:") }

    private func remember(_ key: String) {
        guard seenIDs.insert(key).inserted else { return }
        if seenOrder.count < options.dedupeWindow {
            seenOrder.append(key)
        } else {
            seenIDs.remove(seenOrder[seenHead])
            seenOrder[seenHead] = key
            seenHead = (seenHead + 1) % options.dedupeWindow
        }
    }

    // MARK: Retained playlists

    /// A playlist document (or its withdrawal) on one of the kiosk's playlist topics.
    private func receivedPlaylist(_ message: MosquittoMessage) {
        let document: DesiredPlaylist?
        do throws(MessageError) {
            document = try DesiredPlaylist.parse(message.payload)
            // The gate, once for the document: what it allows does not depend on the screen.
            if let document, case .refused(let error, _) = gate.admit(document.request(screen: "-", id: "check")) {
                throw error
            }
        } catch {
            // Refused whole: the kiosk keeps playing what it plays (a typo does not blank a site's screens).
            let counter = error.code == .notPermitted ? "playlistNotAllowed" : "playlistMalformed"
            notes["playlistError"] = "\(message.topic): \(error.message)"
            count(
                counter, logging: "playlist document on \(message.topic) refused: \(error.message)",
                start: message.payload)
            return
        }
        logger.debug(
            "fleet playlist document \(document?.digest ?? "withdrawn") on \(message.topic)",
            metadata: ["retained": "\(message.retained)"])
        perform(playlists.received(document, on: message.topic))
    }

    /// The screens the previous run gave a playlist document, from its retained status (`fleetPlaylist`).
    private func restorePlaylists(fromStatus payload: [UInt8]) {
        guard case .object(let status)? = try? JSONValue.parse(payload),
            case .object(let previous)? = status["fleetPlaylist"], case .string(let topic)? = previous["topic"],
            case .array(let names)? = previous["screens"]
        else { return }
        let screens = names.compactMap { name -> String? in
            if case .string(let text) = name { return text }
            return nil
        }
        logger.debug("fleet playlist document of the previous run: \(topic) on \(screens)")
        perform(playlists.restored(topic: topic, screens: screens))
    }

    /// The screens of a `status` reply: those that are not the controller may be given a playlist document.
    private func screensListed(_ screens: JSONValue?) {
        guard case .array(let entries)? = screens else { return }
        let external = entries.compactMap { entry -> String? in
            let fields = entry.objectValue
            guard case .string(let name)? = fields["name"], fields["role"] != .string("controller") else { return nil }
            return name
        }
        perform(playlists.screensChanged(external: external))
    }

    /// Each action as a request through the gate and the intake, exactly as an operator's command would go.
    private func perform(_ actions: [PlaylistDesiredState.Action]) {
        let topic = playlists.appliedTopic ?? "no document"
        let inForce = playlists.inForce.map { "\($0.topic) \($0.playlist.digest)" } ?? "none"
        if notes["playlist"] != inForce {
            // Once per change, not per delivery: the same document comes again at every connection.
            logger.info("fleet playlist document in force: \(inForce)")
            notes["playlist"] = inForce
        }
        guard !actions.isEmpty else { return }
        for action in actions {
            let method: MessageMethod
            let screen: String
            let request: [UInt8]
            switch action {
            case .set(let name, let document):
                (method, screen, request) = (.setPlaylist, name, document.request(screen: name, id: "playlist"))
            case .clear(let name):
                (method, screen, request) = (
                    .clearPlaylist, name, FleetOperator.request(.clearPlaylist(screen: name), id: "playlist")
                )
            }
            let tag = FleetRequestTag.desiredPlaylist(topic: topic, method: method, screen: screen)
            let refusal: MessageError?
            switch gate.admit(request) {
            case .message(let message, _, _): refusal = intake.submit(message, requestID: nil, tag: tag)
            case .refused(let error, _): refusal = error
            case .subscribe: preconditionFailure("a playlist request is never events.subscribe")
            }
            if let refusal {
                let counter = refusal.code == .notPermitted ? "playlistNotAllowed" : "playlistFailed"
                count(counter, logging: "\(method.rawValue) on \(screen) for \(topic): \(refusal.message)")
            }
        }
        statusDirty = true
    }

    /// Counts a refusal under `counter`; the first few of each counter are logged, with the start of the payload when
    /// given (a flood, or a document republished in a loop, cannot fill the journal).
    private func count(_ counter: String, logging text: String, start: [UInt8]? = nil) {
        stats[counter, default: 0] += 1
        guard stats[counter, default: 0] <= 5 else { return }
        var metadata: Logger.Metadata = [:]
        if let start { metadata["start"] = "\(String(decoding: start.prefix(80), as: UTF8.self).logSafe)" }
        logger.notice("\(text.logSafe)", metadata: metadata)
    }

    /// The document in force, for the retained status: its topic, digest, epoch and the screens given it.
    private var playlistInForce: JSONValue {
        guard let current = playlists.inForce else { return .null }
        return .object([
            "topic": .string(current.topic), "digest": .string(current.playlist.digest),
            "epoch": .number(current.playlist.epoch ?? 0),
            "screens": .array(playlists.applied.map { .string($0) }),
        ])
    }

    // MARK: Replies, status, events

    private func answer(_ reply: Reply, to tag: FleetRequestTag) {
        switch tag {
        case .request(let envelope):
            self.reply(reply, in: envelope)
            statusDirty = true
        case .statusRefresh:
            statusInFlight = false
            if case .result(_, let result) = reply {
                screensListed(result["screens"])
                publishStatus(result)
            }
        case .desiredPlaylist(let topic, let method, let screen):
            statusDirty = true
            switch reply {
            case .error(let error):
                // Clearing a screen someone cleared by hand already is what was wanted.
                if method == .clearPlaylist && error.code == .refused { return }
                count(
                    "playlistFailed", logging: "\(method.rawValue) on \(screen) for \(topic) failed: \(error.message)")
            default:
                stats[method == .clearPlaylist ? "playlistClears" : "playlistSets", default: 0] += 1
            }
        }
    }

    /// In the request's form: `{"id", "method", "result"}` or `{"id", "error"}`, or JSON-RPC's.
    private func reply(_ reply: Reply, in envelope: Envelope) {
        guard let line = MessageCodec.encode(reply, in: envelope) else { return }
        stats["replies", default: 0] += 1
        send(topic: topics.reply, payload: Array(line.utf8), retain: false)
    }

    private func requestStatus() {
        guard intake.submit(.status, requestID: nil, tag: .statusRefresh) == nil else { return }
        statusInFlight = true
        statusDirty = false
        lastStatusAt = now
    }

    private func publishStatus(_ result: [String: JSONValue]) {
        let document = RetainedStatus.document(
            from: result, config: config, version: options.version,
            uptimeSeconds: Int(Date().timeIntervalSince(startedAt)), now: Date(), playlist: playlistInForce)
        stats["statusPublished", default: 0] += 1
        send(topic: topics.status, payload: Array(document.serialized.utf8), retain: true)
    }

    private func publish(_ events: [Event]) {
        guard !events.isEmpty else { return }
        statusDirty = true
        // Proof of play is a record, not a notice: QoS 1 on a topic of its own, held in the outbox while the broker
        // is unreachable (the events topic below stays QoS 0, dropped while offline).
        for event in events where event.name == Event.Name.playlistPlayed.rawValue {
            stats["historyPublished", default: 0] += 1
            send(topic: topics.history, payload: Array(MessageCodec.encode(event).utf8), retain: false)
        }
        guard case .connected = connection else {
            stats["eventsDropped", default: 0] += events.count
            return
        }
        for event in events {
            stats["eventsPublished", default: 0] += 1
            let payload = Array(MessageCodec.encode(event).utf8)
            do throws(MosquittoError) {
                try client.publish(topic: topics.events, payload: payload, qos: 0, retain: false)
            } catch {
                stats["eventsDropped", default: 0] += 1
            }
        }
    }

    /// Publishes with QoS 1, or holds the message until the broker is back (bounded by ``outboxLimit``).
    private func send(topic: String, payload: [UInt8], retain: Bool) {
        if case .connected = connection {
            do throws(MosquittoError) {
                try client.publish(topic: topic, payload: payload, qos: 1, retain: retain)
                return
            } catch {
                logger.debug("fleet publish to \(topic) failed (\(error)); held until the broker is back")
            }
        }
        if retain, let index = outbox.firstIndex(where: { $0.topic == topic && $0.retain }) {
            outbox[index].payload = payload  // only the newest retained status matters
            return
        }
        if outbox.count >= options.outboxLimit {
            let dropped = outbox.removeFirst()
            stats[dropped.topic == topics.history ? "historyDropped" : "repliesDropped", default: 0] += 1
        }
        outbox.append((topic, payload, retain))
    }

    private func publishCounters() {
        stats["outbox"] = outbox.count
        let snapshot = stats
        shared.counters.withLock { $0 = snapshot }
        let words = notes
        shared.notes.withLock { $0 = words }
    }
}
