import Messaging
import NIOCore
import NIOWebSocket
import RemoteRequests
import Synchronization

/// One controller's WebSocket (RFC 6455 over NIO's frame codec): each text message is a request, answered in order
/// with the local socket's codec, and each message it sent is acknowledged again as screens show it
/// (``ShownReceipt``). A binary message, one over the size limit, or one faster than the rate limit is an error;
/// a newer claim (or idling out) writes the reason and closes with 1008. When the socket ends, the session's page
/// counts as closed (control is released after the grace unless it comes back).
///
/// It runs in the connection's task (on the remote's event loop, by the server task's executor preference): one
/// child task writes every frame in order, the connection's task reads. When the kiosk closes, it waits for the
/// phone's close frame at most ``closeTimeout``, a task scheduled on the connection's event loop, never
/// `Task.sleep` (see ``DeadlineTimer`` for why not).
enum PhoneSocket {
    /// How long the kiosk waits for the phone to answer its close frame before dropping the connection.
    static let closeTimeout = TimeAmount.seconds(10)
    /// Frames waiting to be written; a phone that lets more pile up (it does not read) is disconnected.
    static let outgoingLimit = 256

    /// What the writer sends, in order.
    enum Outgoing: Sendable {
        case text(String)
        case pong(ByteBuffer)
        /// The close frame: nothing is written after it.
        case close(WebSocketErrorCode, reason: String?)
    }

    static func serve(_ socket: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, token: String, hub: RemoteHub) async {
        let channel = socket.channel
        let deadline = CloseDeadline(channel: channel, after: closeTimeout)
        defer { deadline.cancel() }
        do {
            try await socket.executeThenClose { inbound, outbound in
                let (outgoing, out) = AsyncStream<Outgoing>.makeStream(
                    bufferingPolicy: .bufferingOldest(outgoingLimit))
                let attached = hub.attach(token) { reason in
                    let error = MessageError(.notPermitted, reason.rawValue)
                    out.yield(.text(MessageCodec.encodeError(error)))
                    out.yield(.close(.policyViolation, reason: reason.rawValue))
                    deadline.arm()
                }
                let ids: (session: Int, connection: Int)
                switch attached {
                case .success(let attachedIDs): ids = attachedIDs
                case .failure(let refusal):
                    // Control changed hands since the upgrade was admitted.
                    out.yield(.text(MessageCodec.encodeError(MessageError(.notPermitted, refusal.rawValue))))
                    out.yield(.close(.policyViolation, reason: refusal.rawValue))
                    out.finish()
                    await write(outgoing, to: outbound, channel: channel)
                    return
                }
                defer {
                    hub.receipts.forget(owner: ids.connection)
                    hub.detach(session: ids.session, connection: ids.connection, token: token)
                }
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await write(outgoing, to: outbound, channel: channel) }
                    await read(
                        inbound, replies: out, deadline: deadline, token: token, connection: ids.connection, hub: hub)
                    out.finish()
                }
            }
        } catch {
            hub.logger.debug("remote WebSocket ended: \(error)")
        }
    }

    /// Writes what comes out of `outgoing` until it ends; nothing after the close frame.
    static func write(
        _ outgoing: AsyncStream<Outgoing>, to outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>,
        channel: any Channel
    ) async {
        var done = false
        for await item in outgoing where !done {
            do {
                switch item {
                case .text(let line):
                    try await outbound.write(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: line)))
                case .pong(let data):
                    try await outbound.write(WebSocketFrame(fin: true, opcode: .pong, data: data))
                case .close(let code, let reason):
                    done = true
                    var data = ByteBuffer()
                    data.write(webSocketErrorCode: code)
                    // A control frame carries at most 125 bytes.
                    if let reason { data.writeString(String(decoding: reason.utf8.prefix(123), as: UTF8.self)) }
                    try await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))
                }
            } catch {
                // The connection is gone: the reader sees it end too.
                done = true
                channel.close(promise: nil)
            }
        }
    }

    /// Reads frames until the phone's close frame or the end of the connection, answering each message through
    /// `replies`. What each frame means is ``MessageReader``'s (fuzzed on its own, behind NIO's frame decoder).
    static func read(
        _ inbound: NIOAsyncChannelInboundStream<WebSocketFrame>, replies: AsyncStream<Outgoing>.Continuation,
        deadline: CloseDeadline, token: String, connection: Int, hub: RemoteHub
    ) async {
        var reader = MessageReader(
            limit: hub.options.maximumMessageBytes, messagesPerSecond: hub.options.messagesPerSecond)
        func send(_ item: Outgoing) -> Bool {
            guard case .dropped = replies.yield(item) else { return true }
            // It does not read what it is sent: no close handshake with it.
            hub.count("closedSlowClient")
            deadline.closeNow()
            return false
        }
        do {
            frames: for try await frame in inbound {
                var proceed = true
                let action = reader.read(
                    MessageReader.Frame(
                        opcode: UInt8(webSocketOpcode: frame.opcode), fin: frame.fin, masked: frame.maskKey != nil,
                        reservedBits: !frame.reservedBits.isEmpty, payload: Array(frame.unmaskedData.readableBytesView)),
                    now: RemoteHub.monotonicSeconds())
                switch action {
                case .none:
                    break
                case .pong(let payload):
                    proceed = send(.pong(ByteBuffer(bytes: payload)))
                case .closed:
                    // Answered (when the kiosk has not closed first); the handshake is over.
                    _ = send(.close(.normalClosure, reason: nil))
                    break frames
                case .reply(let refusal, let counter):
                    hub.count(counter)
                    let error =
                        switch refusal {
                        case .binary: MessageError(.invalidRequest, "binary frames are not accepted; send JSON text")
                        case .rate:
                            MessageError(
                                .busy, "more than \(Int(reader.messagesPerSecond)) messages a second; slow down")
                        }
                    proceed = send(.text(MessageCodec.encodeError(error)))
                case .fail(let code, let reason, let counter):
                    hub.count(counter)
                    deadline.arm()
                    proceed =
                        send(.text(MessageCodec.encodeError(MessageError(.invalidRequest, reason))))
                        && send(.close(WebSocketErrorCode(codeNumber: Int(code.rawValue)), reason: reason))
                case .request(let bytes):
                    let handled = await hub.handle(json: bytes, token: token)
                    if let id = handled.sent {
                        // Registered before the reply is written: a frame can show it before the phone reads the
                        // reply, never before the display thread replied.
                        hub.receipts.watch(id: id, owner: connection) { receipt in
                            if case .dropped = replies.yield(.text(receipt.line)) { hub.count("receiptsDropped") }
                        }
                    }
                    if let line = handled.line { proceed = send(.text(line)) }
                }
                guard proceed else { break }
            }
        } catch NIOWebSocketError.invalidFrameLength {
            // One frame over ``ConnectionLimits/maximumFrameBytes`` (far over the message limit): NIO's handler
            // has answered 1009 and closed. A frame up to that size is read whole and refused above, with 1009.
            hub.count("refused.oversize")
        } catch {
            if !reader.closing { hub.count("closedWithError") }
        }
    }
}

/// The kiosk's side of a close handshake: once it has sent its close frame, the phone has ``PhoneSocket/closeTimeout``
/// to answer before the connection is dropped. A task scheduled on the connection's event loop; cancelled when the
/// connection ends.
final class CloseDeadline: Sendable {
    private let channel: any Channel
    private let timeout: TimeAmount
    private let scheduled = Mutex<(armed: Bool, task: Scheduled<Void>?)>((false, nil))

    init(channel: any Channel, after timeout: TimeAmount) {
        self.channel = channel
        self.timeout = timeout
    }

    /// Starts the wait (once; later calls change nothing).
    func arm() {
        let channel = channel
        scheduled.withLock { state in
            guard !state.armed else { return }
            state.armed = true
            state.task = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        }
    }

    /// Drops the connection at once (a phone that does not read).
    func closeNow() {
        cancel()
        channel.close(promise: nil)
    }

    func cancel() {
        scheduled.withLock { state in
            state.armed = true
            state.task?.cancel()
            state.task = nil
        }
    }
}
