import NIOCore
import NIOEmbedded
import NIOWebSocket
import RemoteRequests

/// Any bytes as what a phone sends on its WebSocket after the upgrade, through the pipeline the remote's upgrader
/// installs (NIO's `WebSocketFrameDecoder`, `WebSocketProtocolErrorHandler` and `WebSocketFrameEncoder`) into the
/// remote's own reading of frames (``MessageReader``, which `PhoneSocket` runs), on an `EmbeddedChannel`. Limits
/// shrunk (messages of 100 bytes, frames of 200) so short inputs reach them. Never a crash, and:
/// - a request is a whole text message: the bytes of its frames in order, at most the limit, UTF-8;
/// - a message whose frames add up to more than the limit is refused with close 1009, whole or in fragments;
/// - nothing is read as a request after the kiosk's close frame, or after the phone's;
/// - a frame over the decoder's limit is answered with close 1009, any other malformed frame with 1002 (NIO's).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRemoteFrames(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let channel = EmbeddedChannel()
    let reading = Reading()
    let sent = SentFrames()
    do {
        try channel.pipeline.syncOperations.addHandlers([
            WebSocketFrameEncoder(), sent, ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: frameLimit)),
            WebSocketProtocolErrorHandler(), reading,
        ])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    } catch {
        preconditionFailure("pipeline: \(error)")
    }
    // In two pieces, as a network delivers them.
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    var decoderError: (any Error)?
    for piece in [bytes[..<split], bytes[split...]] where channel.isActive {
        do {
            try channel.writeInbound(ByteBuffer(bytes: piece))
        } catch {
            decoderError = decoderError ?? error
        }
    }
    if let error = decoderError as? NIOWebSocketError {
        // NIO's error handler answers a broken frame with a close frame and closes the channel.
        let expected: UInt16 = error == .invalidFrameLength ? 1009 : 1002
        precondition(sent.closeCodes.last == expected, "\(error) answered with \(sent.closeCodes), not \(expected)")
    } else if let error = decoderError {
        preconditionFailure("the frame decoder threw \(error)")
    }
    end(channel)
    return 0
}

private let messageLimit = 100
private let frameLimit = 200

/// The remote's reading, and a model of what it must do.
private final class Reading: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    var reader = MessageReader(limit: messageLimit, messagesPerSecond: 10)
    var frames = 0
    /// The phone's close frame came: PhoneSocket stops reading.
    var ended = false
    /// The model: the data bytes of the message under way, nil between messages.
    var partial: [UInt8]?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !ended else { return }
        let frame = unwrapInboundIn(data)
        frames += 1
        let payload = Array(frame.unmaskedData.readableBytesView)
        let wellFormed = frame.maskKey != nil && frame.reservedBits.isEmpty
        let closingBefore = reader.closing
        let action = reader.read(
            MessageReader.Frame(
                opcode: UInt8(webSocketOpcode: frame.opcode), fin: frame.fin, masked: frame.maskKey != nil,
                reservedBits: !frame.reservedBits.isEmpty, payload: payload),
            now: Double(frames) * 0.07)
        // What the model expects of a well-formed data frame while the kiosk has not closed.
        if wellFormed, !closingBefore, [.text, .binary, .continuation].contains(frame.opcode) {
            let starts = frame.opcode != .continuation
            if starts == (partial == nil) {
                let total = (partial ?? []) + payload
                if total.count > messageLimit {
                    guard case .fail(.tooLarge, _, _) = action else {
                        preconditionFailure("a message of \(total.count) bytes over \(messageLimit) got \(action)")
                    }
                    partial = nil
                } else if frame.fin {
                    partial = nil
                    if case .request(let message) = action {
                        precondition(message == total, "request \(message) is not its frames' bytes \(total)")
                        precondition(frame.opcode != .binary, "a binary message read as a request")
                    }
                } else {
                    partial = total
                    precondition(action == .none, "a fragment answered \(action)")
                }
            } else {
                guard case .fail(.protocolError, _, _) = action else {
                    preconditionFailure("a data frame out of order got \(action)")
                }
            }
        }
        switch action {
        case .none, .reply:
            break
        case .request(let message):
            precondition(!closingBefore, "a request read after the kiosk's close frame")
            precondition(message.count <= messageLimit, "a request of \(message.count) bytes")
            precondition(String(validating: message, as: UTF8.self) != nil, "a request that is not UTF-8")
        case .pong(let data):
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: ByteBuffer(bytes: data))
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .fail(let code, _, _):
            precondition(!closingBefore, "a second close frame")
            precondition(reader.closing, "a refusal that does not close")
            close(context, code.rawValue)
        case .closed:
            ended = true
            close(context, MessageReader.CloseCode.normal.rawValue)
        }
    }

    private func close(_ context: ChannelHandlerContext, _ code: UInt16) {
        var data = ByteBuffer()
        data.write(webSocketErrorCode: WebSocketErrorCode(codeNumber: Int(code)))
        context.writeAndFlush(
            wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)), promise: nil)
    }
}

/// The close codes of the frames written to the phone (NIO's error handler's included).
private final class SentFrames: ChannelOutboundHandler {
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame
    var closeCodes: [UInt16] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let frame = unwrapOutboundIn(data)
        if frame.opcode == .connectionClose {
            var payload = frame.unmaskedData
            closeCodes.append(payload.readInteger(as: UInt16.self) ?? 0)
        }
        context.write(data, promise: promise)
    }
}

/// Runs what the channel's close left on its loop (a task that holds the channel), then shuts the loop down: without it
/// each input leaks its channel (LeakSanitizer).
func end(_ channel: EmbeddedChannel) {
    channel.embeddedEventLoop.run()
    _ = try? channel.finish()
    channel.embeddedEventLoop.run()
    try? channel.embeddedEventLoop.syncShutdownGracefully()
}
