import Logging
import Messaging
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// The server thread's state and loop: the socket's I/O. Everything here belongs to that thread; requests go through
/// the ``RequestIntake`` and replies and events come back through the ``Mailbox``.
final class ControlLoop {
    private let path: String
    private let listener: Int32
    private let socketIdentity: ControlServer.SocketIdentity
    private let intake: RequestIntake<ControlRequestTag>
    private let mailbox: Mailbox<ControlMail>
    private let shared: ControlShared
    private let options: ControlServer.Options
    private let logger: Logger

    private var connections: [Int: ControlConnection] = [:]
    /// Closed connections whose held requests are still to be handled, a few per turn of the loop: a client that
    /// pipelined thousands of requests and left must not stall everyone else while they are sorted (its queries
    /// dropped, the rest applied).
    private var leaving = FIFO<ControlConnection>()
    /// Held requests of a closed connection handled per turn of the loop (each is decoded, tens of microseconds).
    private static let leavingRequestsPerTurn = 64
    private var nextConnectionID = 0
    private var statistics = ControlStatistics()
    /// Connections with ``ControlConnection/subscribed`` set, mirrored in ``ControlMailbox/subscribers``.
    private var subscriberCount = 0
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    /// While descriptors ran out (`accept` failed with `EMFILE`/`ENFILE`), the listener is left out of `poll` until
    /// this time (monotonic ns): polling it would report the waiting connection at once, again and again, a busy
    /// loop that also flooded the log. The pause doubles from 50 ms to 1 s while the failures go on.
    private var acceptPausedUntil: UInt64?
    /// A descriptor held in reserve (`/dev/null`) for the operator: when `accept` fails with `EMFILE` it is closed
    /// and the connection accepted in its place, so a command still gets through while something else (a flood of
    /// connections elsewhere in the process) holds every other descriptor. Opened again once descriptors are free.
    private var reserve: Int32 = -1
    private var acceptPause: UInt64 = 0
    private static let acceptPauseRange: ClosedRange<UInt64> = 50_000_000...1_000_000_000

    init(
        path: String, listener: Int32, socketIdentity: ControlServer.SocketIdentity,
        intake: RequestIntake<ControlRequestTag>, mailbox: Mailbox<ControlMail>, shared: ControlShared,
        options: ControlServer.Options, logger: Logger
    ) {
        self.path = path
        self.listener = listener
        self.socketIdentity = socketIdentity
        self.intake = intake
        self.mailbox = mailbox
        self.shared = shared
        self.options = options
        self.logger = logger
    }

    deinit { readBuffer.deallocate() }

    func run() {
        defer { closeEverything() }
        reserve = open("/dev/null", O_RDONLY | O_CLOEXEC)
        var descriptors: [pollfd] = []
        var polled: [ControlConnection] = []
        while true {
            descriptors.removeAll(keepingCapacity: true)
            polled.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: mailbox.wakeDescriptor, events: Int16(POLLIN), revents: 0))
            if reserve < 0 { reserve = open("/dev/null", O_RDONLY | O_CLOEXEC) }
            if let until = acceptPausedUntil, MonotonicClock.nanoseconds() >= until { acceptPausedUntil = nil }
            // Left out while paused: -1 is skipped by poll, and keeps the connections' indices where they are.
            descriptors.append(pollfd(fd: acceptPausedUntil == nil ? listener : -1, events: Int16(POLLIN), revents: 0))
            for connection in connections.values {
                var events: Int32 = 0
                if !connection.readClosed && connection.held.isEmpty
                    && connection.unsentBytes < options.outputBufferLimit
                {
                    events |= POLLIN
                }
                if connection.hasUnsentOutput { events |= POLLOUT }
                // Even with no events, poll reports POLLHUP/POLLERR: a vanished peer is noticed.
                descriptors.append(pollfd(fd: connection.descriptor, events: Int16(events), revents: 0))
                polled.append(connection)
            }
            do {
                // poll's timeout: the sooner of the idle deadline and the end of an accept pause (-1: neither).
                let deadlines = [idleTimeoutMilliseconds(), acceptPauseMilliseconds()].filter { $0 >= 0 }
                let timeout = leaving.isEmpty ? deadlines.min() ?? -1 : 0
                try systemCall("poll") { poll(&descriptors, nfds_t(descriptors.count), timeout) }
            } catch {
                logger.critical("control socket \(error); closing it")
                return
            }
            if descriptors[0].revents != 0 {
                let inbox = mailbox.take()
                if inbox.stopping { return }
                deliver(inbox.items)
            }
            if descriptors[1].revents != 0 { acceptAll() }
            for (index, connection) in polled.enumerated() where connections[connection.id] != nil {
                service(connection, revents: Int32(descriptors[index + 2].revents))
            }
            closeIdleConnections()
            handleLeavingRequests()
            statistics.awaitingDisplay = intake.waiting
            statistics.subscribers = subscriberCount
            let snapshot = statistics
            shared.statistics.withLock { $0 = snapshot }
        }
    }

    /// Closes the listener and every connection and unlinks the socket file if it is still the one we bound.
    func closeEverything() {
        for connection in connections.values { drop(connection) }
        while !leaving.isEmpty { handleLeavingRequests() }
        subscriberCount = 0
        shared.subscribers.store(0, ordering: .releasing)
        statistics.subscribers = 0
        close(listener)
        if reserve >= 0 { close(reserve) }
        reserve = -1
        var status = stat()
        if lstat(path, &status) == 0
            && ControlServer.SocketIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
                == socketIdentity
        {
            unlink(path)
        }
        let snapshot = statistics
        shared.statistics.withLock { $0 = snapshot }
    }

    // MARK: Replies and events from the display thread

    /// Replies go to their connections; the events between them to every subscriber, in the order they came.
    private func deliver(_ mail: [ControlMail]) {
        var touched: [ControlConnection] = []
        var events: [String] = []
        for item in mail {
            switch item {
            case .reply(let tag, let reply):
                guard let connection = connections[tag.connection] else {
                    statistics.repliesDroppedClosedConnection += 1
                    continue
                }
                connection.fill(tag.sequence, line: MessageCodec.encode(reply, in: tag.envelope))
                connection.inFlight -= 1
                touched.append(connection)
            case .event(let line):
                events.append(line)
            }
        }
        for connection in touched where connections[connection.id] != nil { pushReplies(connection) }
        broadcast(events)
    }

    /// Queues each event on every subscriber whose output is under the limit; for the others, counts it.
    private func broadcast(_ events: [String]) {
        guard !events.isEmpty, subscriberCount > 0 else { return }
        let lines = events.map(ControlConnection.bytes(of:))
        for connection in connections.values where connection.subscribed {
            for line in lines {
                // Once over the limit, drop until caught up (``pushReplies``), not whenever a flush makes room
                // for one more line: the subscriber gets one `events.dropped` line per episode, not one per event.
                if connection.eventsDropped > 0 || connection.unsentBytes >= options.outputBufferLimit {
                    if connection.eventsDropped == 0 {
                        logger.debug(
                            "control subscriber is not reading; dropping its events",
                            metadata: ["connection": "\(connection.id)"])
                    }
                    connection.eventsDropped += 1
                    statistics.eventsDropped += 1
                } else {
                    connection.appendEvent(line)
                }
            }
            pushReplies(connection)
        }
    }

    // MARK: Connections

    private func acceptAll() {
        var onReserve = false
        while true {
            let descriptor: Int32
            do {
                descriptor = try systemCall("accept") { accept(listener, nil, nil) }
            } catch {
                switch error.errno {
                case EAGAIN, EWOULDBLOCK: return
                case ECONNABORTED, EPROTO: continue
                case EMFILE where reserve >= 0:
                    // Best effort: another thread of the process (the phone remote's) may take the freed descriptor
                    // first; then the next accept fails again and the listener pauses.
                    close(reserve)
                    reserve = -1
                    onReserve = true
                    continue
                default:
                    // EMFILE and friends: leave the connection in the backlog and stop polling the listener for a
                    // while (the log's rate limit bounds this line too; every pause is counted).
                    acceptPause = min(
                        max(acceptPause * 2, Self.acceptPauseRange.lowerBound), Self.acceptPauseRange.upperBound)
                    acceptPausedUntil = MonotonicClock.nanoseconds() &+ acceptPause
                    statistics.acceptPaused += 1
                    logger.error("control socket \(error); not accepting for \(acceptPause / 1_000_000) ms")
                    return
                }
            }
            acceptPause = 0
            if onReserve { statistics.acceptedOnReserve += 1 }
            onReserve = false
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            ControlSocket.setNonBlocking(descriptor)
            admit(descriptor)
        }
    }

    private func admit(_ descriptor: Int32) {
        guard let peer = PeerCredentials(of: descriptor) else {
            statistics.peerRejected += 1
            logger.warning("control connection refused: SO_PEERCRED failed: \(String(cString: strerror(errno)))")
            refuse(descriptor, MessageError(.notPermitted, "permission denied: peer credentials unavailable"))
            return
        }
        guard peer.uid == options.allowedUID else {
            statistics.peerRejected += 1
            logger.warning(
                "control connection refused: peer uid \(peer.uid) is not the allowed uid \(options.allowedUID)",
                metadata: ["pid": "\(peer.pid)", "uid": "\(peer.uid)"])
            refuse(
                descriptor,
                MessageError(
                    .notPermitted, "permission denied: uid \(peer.uid) may not control this Multiscreen"))
            return
        }
        guard connections.count < options.maximumConnections else {
            statistics.connectionsRefusedBusy += 1
            // A client opening connections in a loop must not flood the log: the 1st, 10th, 100th… refusal is
            // logged with the total; every one is counted in `status`.
            if Self.isPowerOfTen(statistics.connectionsRefusedBusy) {
                let refused = statistics.connectionsRefusedBusy
                logger.warning(
                    "control connection refused: \(connections.count) connections already open (\(refused) refused so far)"
                )
            }
            refuse(descriptor, MessageError(.busy, "too many control connections (\(options.maximumConnections))"))
            return
        }
        statistics.connectionsAccepted += 1
        let connection = ControlConnection(
            id: nextConnectionID, descriptor: descriptor, lineLimit: MessageCodec.maximumRequestBytes)
        nextConnectionID += 1
        connections[connection.id] = connection
        logger.debug("control connection \(connection.id) from pid \(peer.pid)")
    }

    /// One error line, best effort (a fresh socket's buffer takes it), then close.
    private func refuse(_ descriptor: Int32, _ error: MessageError) {
        let line = MessageCodec.encodeError(error) + "\n"
        _ = line.utf8CString.withUnsafeBytes { raw in
            send(descriptor, raw.baseAddress, raw.count - 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        close(descriptor)
    }

    private func service(_ connection: ControlConnection, revents: Int32) {
        if revents & POLLERR != 0 {
            drop(connection)
            return
        }
        if revents & (POLLIN | POLLHUP) != 0 && !connection.readClosed {
            // After POLLHUP the peer is gone, but what it sent before closing is still requests (fire and forget:
            // `echo … | socat - UNIX-CONNECT:…`), so read to the end.
            while readOnce(connection) && revents & POLLHUP != 0 {}
        }
        guard connections[connection.id] != nil else { return }
        if revents & POLLHUP != 0 {
            drop(connection)
            return
        }
        pushReplies(connection)
    }

    /// How long `poll` may sleep before the next idle connection is due to be closed; -1 (forever) when no
    /// connection is idle, so an idle server with idle-free clients makes no wakeups.
    private func idleTimeoutMilliseconds() -> Int32 {
        let idle = connections.values.filter(isIdle)
        guard let oldest = idle.map(\.lastActivity).min() else { return -1 }
        let deadline = oldest &+ UInt64(options.idleTimeout * 1e9)
        let now = MonotonicClock.nanoseconds()
        return deadline <= now ? 0 : Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
    }

    /// Until the listener is polled again (-1: it is not paused).
    private func acceptPauseMilliseconds() -> Int32 {
        guard let until = acceptPausedUntil else { return -1 }
        let now = MonotonicClock.nanoseconds()
        return until <= now ? 0 : Int32((until - now + 999_999) / 1_000_000)
    }

    /// Nothing to do: no request in flight, nothing unsent, not subscribed (a subscriber waits for events).
    private func isIdle(_ connection: ControlConnection) -> Bool {
        connection.isFinished && !connection.subscribed
    }

    private func closeIdleConnections() {
        let now = MonotonicClock.nanoseconds()
        let limit = UInt64(options.idleTimeout * 1e9)
        for connection in connections.values where isIdle(connection) && now &- connection.lastActivity >= limit {
            statistics.idleClosed += 1
            logger.debug("control connection \(connection.id) closed: idle for \(options.idleTimeout) s")
            drop(connection)
        }
    }

    /// Reads at most one buffer (one client cannot starve the others). - Returns: whether more may be readable now.
    private func readOnce(_ connection: ControlConnection) -> Bool {
        let count: Int
        do {
            count = try systemCall("read") { read(connection.descriptor, readBuffer.baseAddress, readBuffer.count) }
        } catch {
            if error.errno != EAGAIN && error.errno != EWOULDBLOCK { drop(connection) }
            return false
        }
        connection.lastActivity = MonotonicClock.nanoseconds()
        if count > 0 {
            for event in connection.framer.append(UnsafeRawBufferPointer(rebasing: readBuffer[..<count])) {
                take(event, on: connection)
            }
            return true
        }
        if count == 0 {
            connection.readClosed = true
            for event in connection.framer.finish() { take(event, on: connection) }
        }
        return false
    }

    /// Handles a request now, or holds it (and every later one) while the connection has its limit of requests
    /// waiting for the display thread.
    private func take(_ event: LineFramer.Event, on connection: ControlConnection) {
        if connection.held.isEmpty && connection.inFlight < options.maximumRequestsInFlight {
            handle(event, on: connection)
        } else {
            connection.held.push(event)
        }
    }

    /// Handles held requests in order, while the connection is under its limit of requests in flight and its
    /// output under the buffer limit (a client that does not read its replies is not served more of them).
    private func handleHeld(_ connection: ControlConnection) {
        while connection.inFlight < options.maximumRequestsInFlight
            && connection.unsentBytes < options.outputBufferLimit, let event = connection.held.popFirst()
        {
            handle(event, on: connection)
        }
    }

    /// Handles one request line. `peerGone`: the connection is being closed, so a query (whose only effect would be
    /// its reply) is counted as a dropped reply instead of costing the display thread its work; everything else a
    /// vanished peer sent is still applied (`echo … | socat` is a normal client).
    private func handle(_ event: LineFramer.Event, on connection: ControlConnection, peerGone: Bool = false) {
        switch event {
        case .tooLong:
            statistics.requests += 1
            statistics.malformed += 1
            logMalformed("control request too large", on: connection, bytes: nil)
            connection.append(
                line: MessageCodec.encodeError(
                    MessageError(
                        .requestTooLarge,
                        "request line exceeds \(MessageCodec.maximumRequestBytes) bytes; the rest of the line "
                            + "was discarded")))
        case .line(let bytes):
            // An empty line is no request; one of only blanks is a request with nothing in it, and is answered.
            if bytes.isEmpty { return }
            statistics.requests += 1
            if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
                statistics.malformed += 1
                logMalformed("blank control request", on: connection, bytes: bytes)
                connection.append(
                    line: MessageCodec.encodeError(MessageError(.invalidRequest, "the request line is blank")))
                return
            }
            switch Self.gate.admit(bytes) {
            case .refused(let error, let envelope):
                statistics.malformed += 1
                logMalformed("malformed control request: \(error)", on: connection, bytes: bytes)
                connection.append(line: MessageCodec.encode(.error(error), in: envelope)!)
            case .subscribe(let envelope):
                // Answered even as a JSON-RPC notification: the reply marks where the event stream begins.
                connection.appendSubscribeReply(
                    line: MessageCodec.encode(Reply.subscribed, in: envelope) ?? MessageCodec.encode(Reply.subscribed))
            case .message(let message, _, _) where peerGone && message.isQuery:
                statistics.repliesDroppedClosedConnection += 1
            case .message(let message, let envelope, let requestID):
                let tag = ControlRequestTag(
                    connection: connection.id, sequence: connection.reserve(), envelope: envelope)
                if let refusal = intake.submit(message, requestID: requestID, tag: tag) {
                    if refusal.code == .busy { statistics.rejectedBusy += 1 } else { statistics.malformed += 1 }
                    connection.fill(tag.sequence, line: MessageCodec.encode(.error(refusal), in: envelope))
                } else {
                    connection.inFlight += 1
                }
            }
        }
    }

    /// Moves answered replies to the output and writes what the socket takes; starts a subscription whose reply
    /// moved; tells a subscriber that has caught up how many events it missed; closes a connection that is done
    /// (a subscriber that only half-closed stays until it closes: it is still reading events).
    private func pushReplies(_ connection: ControlConnection) {
        handleHeld(connection)
        let wasSubscribed = connection.subscribed
        let promoted = connection.promoteReady()
        if promoted > 0 { connection.lastActivity = MonotonicClock.nanoseconds() }
        statistics.replies += promoted
        if connection.subscribed && !wasSubscribed {
            subscriberCount += 1
            // Stored before the reply is written, so a publish after the client read it finds the subscriber.
            shared.subscribers.store(subscriberCount, ordering: .releasing)
            logger.debug("control connection \(connection.id) subscribed to events")
        }
        if connection.hasUnsentOutput, case .failed = connection.flush() {
            drop(connection)
            return
        }
        if connection.eventsDropped > 0 && connection.unsentBytes <= options.outputBufferLimit / 2 {
            logger.debug(
                "control subscriber caught up; \(connection.eventsDropped) events dropped",
                metadata: ["connection": "\(connection.id)"])
            connection.appendEvent(
                ControlConnection.bytes(of: ControlEvents.droppedLine(count: connection.eventsDropped)))
            connection.eventsDropped = 0
            if case .failed = connection.flush() {
                drop(connection)
                return
            }
        }
        if connection.readClosed && connection.isFinished && !connection.subscribed { drop(connection) }
    }

    /// Closes a connection. Replies it was still owed are counted as dropped now (answered ones) or when the
    /// display thread gives them (unanswered ones: their place in ``awaitingDisplay`` stays until then); requests it
    /// sent that were held are handled over the next turns of the loop (``leaving``).
    private func drop(_ connection: ControlConnection) {
        if !connection.held.isEmpty { leaving.push(connection) }
        statistics.repliesDroppedClosedConnection += connection.answeredButQueued
        if connection.subscribed {
            subscriberCount -= 1
            shared.subscribers.store(subscriberCount, ordering: .releasing)
            logger.debug("control connection \(connection.id) unsubscribed (closed)")
        }
        close(connection.descriptor)
        connections[connection.id] = nil
    }

    /// Handles the oldest leaving connection's next held requests, as if its peer were still there except that a
    /// query is dropped (nobody would read its reply).
    private func handleLeavingRequests() {
        guard let connection = leaving.first else { return }
        for _ in 0..<Self.leavingRequestsPerTurn {
            guard let event = connection.held.popFirst() else { break }
            handle(event, on: connection, peerGone: true)
        }
        if connection.held.isEmpty { _ = leaving.popFirst() }
    }

    /// Logs a bad request: the first few of a connection at notice, the rest at debug, so a client looping on a
    /// bug (or a flood) cannot fill the journal; the counters still count every one.
    private func logMalformed(_ text: String, on connection: ControlConnection, bytes: [UInt8]?) {
        connection.malformedRequests += 1
        let level: Logger.Level = connection.malformedRequests <= Self.malformedLoggedPerConnection ? .notice : .debug
        var metadata: Logger.Metadata = ["connection": "\(connection.id)"]
        if let bytes {
            metadata["bytes"] = "\(bytes.count)"
            metadata["start"] = "\(excerpt(bytes))"
        }
        logger.log(level: level, "\(text)", metadata: metadata)
        if connection.malformedRequests == Self.malformedLoggedPerConnection {
            logger.notice(
                "further malformed requests on this connection are logged at debug level",
                metadata: ["connection": "\(connection.id)"])
        }
    }

    private static let malformedLoggedPerConnection = 5

    /// Every method, and events as a stream: the peer is the kiosk's own user (checked at accept).
    private static let gate = RequestGate(methods: nil, events: .subscribe)

    /// The first bytes of a bad request, printable, for the log: enough to recognise it, never a 400 KB dump.
    private func excerpt(_ bytes: [UInt8]) -> String {
        let head = bytes.prefix(80).map { $0 >= 0x20 && $0 < 0x7F ? Character(UnicodeScalar($0)) : "." }
        return String(head) + (bytes.count > 80 ? "…" : "")
    }

    static func isPowerOfTen(_ value: Int) -> Bool {
        var value = value
        while value >= 10 && value % 10 == 0 { value /= 10 }
        return value == 1
    }
}
