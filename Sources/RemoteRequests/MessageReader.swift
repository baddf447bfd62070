/// The phone remote's reading of one WebSocket's frames (RFC 6455 §5), apart from NIO so that it can be fuzzed behind
/// NIO's own frame decoder (reliability R9, `FuzzRemoteFrames`): fragments joined into messages of at most `limit`
/// bytes, text that must be UTF-8, a rate limit, and the close code for each way a phone can break the protocol.
/// `PhoneSocket` turns each ``Action`` into frames.
public struct MessageReader: Sendable {
    /// One frame as the decoder read it: payload unmasked.
    public struct Frame: Sendable {
        public var opcode: UInt8
        public var fin: Bool
        public var masked: Bool
        /// Any of RSV1–3 set (no extension is negotiated, so none may be).
        public var reservedBits: Bool
        public var payload: [UInt8]

        public init(opcode: UInt8, fin: Bool, masked: Bool, reservedBits: Bool, payload: [UInt8]) {
            self.opcode = opcode
            self.fin = fin
            self.masked = masked
            self.reservedBits = reservedBits
            self.payload = payload
        }
    }

    /// The close codes the remote sends (RFC 6455 §7.4.1).
    public enum CloseCode: UInt16, Sendable {
        case normal = 1000
        case protocolError = 1002
        case notUTF8 = 1007
        case tooLarge = 1009
    }

    /// What to do about a frame.
    public enum Action: Sendable, Equatable {
        /// Nothing now: a fragment kept, a pong, data after the kiosk's close frame.
        case none
        /// Answer a ping with this payload.
        case pong([UInt8])
        /// A whole text message, UTF-8, within the limits: a request to answer.
        case request([UInt8])
        /// Answer this error (`-32600` or, for `.rate`, `-32003`) and go on reading; `counter` counts it.
        case reply(Refusal, counter: String)
        /// Answer the error `reason` (`-32600`), then close with `code`; data frames are dropped from now on.
        case fail(CloseCode, reason: String, counter: String)
        /// The phone's close frame: answer it (1000, unless the kiosk closed first) and stop reading.
        case closed
    }

    /// An error answered without closing.
    public enum Refusal: Sendable, Equatable {
        case binary
        case rate
    }

    /// The largest message, in bytes, whole or in fragments.
    public let limit: Int
    public let messagesPerSecond: Double
    private var bucket: Double
    private var last: Double?
    /// Frames of any kind (pings, empty fragments included) at most ``framesPerMessage`` times the message rate: a
    /// phone in control cannot keep the remote busy with frames that are no message.
    public static let framesPerMessage = 16.0
    private var frameBucket: Double
    private var lastFrame: Double?
    /// A message whose first frames have come: its kind and its bytes so far.
    private var partial: (binary: Bool, bytes: [UInt8])?
    /// The kiosk has sent its close frame (``Action/fail(_:reason:counter:)``): data is dropped, errors not answered.
    public private(set) var closing = false

    public init(limit: Int, messagesPerSecond: Double) {
        self.limit = limit
        self.messagesPerSecond = messagesPerSecond
        bucket = messagesPerSecond
        frameBucket = messagesPerSecond * Self.framesPerMessage
    }

    /// - Parameter now: monotonic seconds, for the rate limit.
    public mutating func read(_ frame: Frame, now: Double) -> Action {
        guard frame.masked, !frame.reservedBits else {
            return fail(.protocolError, "frames must be masked and use no extension", counter: "refused.protocol")
        }
        let frameRate = messagesPerSecond * Self.framesPerMessage
        frameBucket = min(frameRate, frameBucket + max(0, now - (lastFrame ?? now)) * frameRate)
        lastFrame = now
        guard frameBucket >= 1 else {
            return fail(.protocolError, "more than \(Int(frameRate)) frames a second", counter: "refused.frames")
        }
        frameBucket -= 1
        switch frame.opcode {
        case 0x8:
            return .closed
        case 0x9:
            return .pong(frame.payload)
        case 0xA:
            return .none
        case 0x0, 0x1, 0x2:
            // After the kiosk's close frame, data is dropped.
            guard !closing else { return .none }
            let isStart = frame.opcode != 0x0
            guard isStart == (partial == nil) else {
                return fail(.protocolError, "unexpected continuation frame", counter: "refused.protocol")
            }
            var message = partial ?? (binary: frame.opcode == 0x2, bytes: [])
            // Taken out before it grows, so appending does not copy the bytes so far (they would be shared).
            partial = nil
            guard message.bytes.count + frame.payload.count <= limit else {
                return fail(.tooLarge, "messages are limited to \(limit) bytes", counter: "refused.oversize")
            }
            message.bytes += frame.payload
            guard frame.fin else {
                partial = message
                return .none
            }
            bucket = min(messagesPerSecond, bucket + max(0, now - (last ?? now)) * messagesPerSecond)
            last = now
            if message.binary { return .reply(.binary, counter: "refused.binary") }
            guard bucket >= 1 else { return .reply(.rate, counter: "refused.rate") }
            bucket -= 1
            guard String(validating: message.bytes, as: UTF8.self) != nil else {
                return fail(.notUTF8, "a text message must be UTF-8", counter: "refused.utf8")
            }
            return .request(message.bytes)
        default:
            return fail(.protocolError, "unknown opcode \(frame.opcode)", counter: "refused.protocol")
        }
    }

    /// Once closing, a second protocol error is not answered (the close frame is out already).
    private mutating func fail(_ code: CloseCode, _ reason: String, counter: String) -> Action {
        guard !closing else { return .none }
        closing = true
        return .fail(code, reason: reason, counter: counter)
    }
}
