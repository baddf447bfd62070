import Logging
import Messaging

/// Reading requests: each line through the gate and into the intake, or answered here when refused.
extension ControlLoop {
    /// Handles one request line. `peerGone`: the connection is being closed, so a query (whose only effect would be
    /// its reply) is counted as a dropped reply instead of costing the display thread its work; everything else a
    /// vanished peer sent is still applied (`echo … | socat` is a normal client).
    func handle(_ event: LineFramer.Event, on connection: ControlConnection, peerGone: Bool = false) {
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

    /// Logs a bad request: the first few of a connection at notice, the rest at debug, so a client looping on a
    /// bug (or a flood) cannot fill the journal; the counters still count every one.
    func logMalformed(_ text: String, on connection: ControlConnection, bytes: [UInt8]?) {
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

    static let malformedLoggedPerConnection = 5

    /// Every method, and events as a stream: the peer is the kiosk's own user (checked at accept).
    static let gate = RequestGate(methods: nil, events: .subscribe)

    /// The first bytes of a bad request, printable, for the log: enough to recognise it, never a 400 KB dump.
    func excerpt(_ bytes: [UInt8]) -> String {
        let head = bytes.prefix(80).map { $0 >= 0x20 && $0 < 0x7F ? Character(UnicodeScalar($0)) : "." }
        return String(head) + (bytes.count > 80 ? "…" : "")
    }

    static func isPowerOfTen(_ value: Int) -> Bool {
        var value = value
        while value >= 10 && value % 10 == 0 { value /= 10 }
        return value == 1
    }
}
