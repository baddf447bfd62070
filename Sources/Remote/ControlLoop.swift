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
    private let listener: ControlListener
    private let socketIdentity: ControlServer.SocketIdentity
    let intake: RequestIntake<ControlRequestTag>
    private let mailbox: Mailbox<ControlMail>
    private let shared: ControlShared
    private let options: ControlServer.Options
    let logger: Logger

    private var connections: [Int: ControlConnection] = [:]
    /// Closed connections whose held requests are still to be handled, a few per turn of the loop: a client that
    /// pipelined thousands of requests and left must not stall everyone else while they are sorted (its queries
    /// dropped, the rest applied).
    private var leaving = FIFO<ControlConnection>()
    /// Held requests of a closed connection handled per turn of the loop (each is decoded, tens of microseconds).
    private static let leavingRequestsPerTurn = 64
    private var nextConnectionID = 0
    var statistics = ControlStatistics()
    /// Connections with ``ControlConnection/subscribed`` set, mirrored in ``ControlShared/subscribers``.
    private var subscriberCount = 0
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)

    init(
        path: String, listener: Int32, socketIdentity: ControlServer.SocketIdentity,
        intake: RequestIntake<ControlRequestTag>, mailbox: Mailbox<ControlMail>, shared: ControlShared,
        options: ControlServer.Options, logger: Logger
    ) {
        self.path = path
        self.listener = ControlListener(descriptor: listener)
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
        var descriptors: [pollfd] = []
        var polled: [ControlConnection] = []
        while true {
            descriptors.removeAll(keepingCapacity: true)
            polled.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: mailbox.wakeDescriptor, events: Int16(POLLIN), revents: 0))
            // Left out while paused: -1 is skipped by poll, and keeps the connections' indices where they are.
            descriptors.append(pollfd(fd: listener.pollDescriptor(), events: Int16(POLLIN), revents: 0))
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
                let deadlines = [idleTimeoutMilliseconds(), listener.pauseMilliseconds()].filter { $0 >= 0 }
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
        listener.close()
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

    /// Replies go to their connections, then the events to every subscriber, each in the order it came.
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
                // At the limit, hand the socket what it takes before deciding: a subscriber that reads is not
                // dropped because many events came in one wakeup.
                if connection.eventsDropped == 0 && connection.unsentBytes >= options.outputBufferLimit,
                    case .failed = connection.flush()
                {
                    drop(connection)
                    break
                }
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
            if connections[connection.id] != nil { pushReplies(connection) }
        }
    }

    // MARK: Connections

    private func acceptAll() {
        let accepted = listener.acceptAll(admit: admit)
        statistics.acceptedOnReserve += accepted.onReserve
        if let (error, milliseconds) = accepted.paused {
            // The log's rate limit bounds this line too; every pause is counted.
            statistics.acceptPaused += 1
            logger.error("control socket \(error); not accepting for \(milliseconds) ms")
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
    /// display thread gives them (unanswered ones: their tags stay in the intake until then); requests it
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
}
