import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import RemoteRequests

/// Any bytes as what a client sends to the phone remote's port, through the HTTP/1.1 pipeline the remote serves
/// (NIO's `HTTPRequestDecoder` and `HTTPResponseEncoder`, then `HTTP1ToHTTPServerCodec`, whose `HTTPRequest` the
/// routes read) into the remote's own reading of each request (``RequestHead``: the `Host`/`Origin` check with an
/// `Origin` required on a `POST`, the session cookie, the QR link's code; ``FormBody`` for a `POST`'s body), on an
/// `EmbeddedChannel`. Hummingbird's router is left out (building it with `-sanitize=fuzzer` would take the fast
/// tier's budget): the handler here answers as the routes' checks decide. Never a crash, and:
/// - every request decoded whole is answered exactly once (let through or refused), and nothing is answered twice;
/// - a request is let through only when its authority is allowed and its `Origin`, if any, is that authority behind
///   http(s) or ws(s); a `POST` only with an `Origin`;
/// - the session cookie read is a value of a `Cookie` field, without `;`;
/// - a link's code put in the page is 1 to 64 letters, digits, `-` or `_` (nothing to escape);
/// - a form body that parses, encoded again as a browser would, parses to the same fields.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRemoteHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let channel = EmbeddedChannel()
    let reading = Reading()
    do {
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withPipeliningAssistance: false, withErrorHandling: false)
        try channel.pipeline.syncOperations.addHandlers([HTTP1ToHTTPServerCodec(secure: false), reading])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    } catch {
        preconditionFailure("pipeline: \(error)")
    }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // In two pieces, as a network delivers them.
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    for piece in [bytes[..<split], bytes[split...]] where channel.isActive {
        do {
            try channel.writeInbound(ByteBuffer(bytes: piece))
        } catch {
            // A request NIO cannot parse (or HTTPTypes cannot convert): the server answers 400 and closes.
            break
        }
    }
    var responses = 0
    while let part = try? channel.readOutbound(as: ByteBuffer.self) {
        if part.readableBytesView.starts(with: Array("HTTP/1.1 ".utf8)) { responses += 1 }
    }
    precondition(responses == reading.answered, "\(reading.answered) answers, \(responses) response heads written")
    precondition(reading.answered == reading.completed, "\(reading.completed) requests, \(reading.answered) answered")
    end(channel)
    return 0
}

private let policy = HostPolicy(host: "0.0.0.0", port: 8080, extraHosts: ["kiosk.local", "10.0.0.7:80"])
private let cookieName = "multiscreen_session"
/// The largest form body read (a `/send` form's, for 16 KiB of text).
private let bodyLimit = 3 * 16 * 1024 + 64

private final class Reading: ChannelInboundHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    var request: HTTPRequest?
    var body: [UInt8] = []
    var completed = 0
    var answered = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            precondition(request == nil, "a head inside a request")
            request = head
            body = []
        case .body(let buffer):
            precondition(request != nil, "a body without a head")
            if body.count < bodyLimit { body += buffer.readableBytesView.prefix(bodyLimit - body.count) }
        case .end:
            guard let head = request else { preconditionFailure("an end without a head") }
            request = nil
            completed += 1
            let status = answer(head)
            answered += 1
            let response = HTTPResponse(status: status, headerFields: [.contentLength: "0"])
            context.write(wrapOutboundOut(.head(response)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    /// What the routes' checks make of a request.
    private func answer(_ head: HTTPRequest) -> HTTPResponse.Status {
        let origin = head.headerFields[.origin]
        let changesState = head.method == .post
        let path = head.path ?? ""
        if path == "/healthz" { return .ok }
        if let refusal = RequestHead.refusal(
            authority: head.authority, origin: origin, changesState: changesState, hosts: policy)
        {
            precondition(!refusal.reason.isEmpty)
            return .forbidden
        }
        // Let through: the authority is allowed, and so is the origin; a POST has one.
        precondition(policy.allowedAuthorities.contains(head.authority?.lowercased() ?? ""), "\(head) let through")
        if let origin = origin?.lowercased() {
            let allowed = ["http://", "https://", "ws://", "wss://"].contains { scheme in
                origin.hasPrefix(scheme) && policy.allowedAuthorities.contains(String(origin.dropFirst(scheme.count)))
            }
            precondition(allowed, "Origin \(origin) let through")
        } else {
            precondition(!changesState, "a POST without Origin let through")
        }
        let cookies = head.headerFields[values: .cookie]
        if let session = RequestHead.cookie(cookieName, in: cookies) {
            precondition(!session.contains(";"), "cookie value \(session)")
            precondition(cookies.contains { $0.contains(session) }, "cookie \(session) not in \(cookies)")
        }
        let query = path.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        for pair in query.split(separator: "&") where pair.hasPrefix("code=") {
            let value = String(pair.dropFirst(5)).removingPercentEncoding ?? ""
            if let code = RequestHead.linkCode(value) {
                precondition(
                    (1...64).contains(code.utf8.count)
                        && code.utf8.allSatisfy {
                            $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0)
                                || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                        },
                    "link code \(code) put in the page")
            }
        }
        if changesState {
            guard body.count <= bodyLimit, let text = String(validating: body, as: UTF8.self) else {
                return .badRequest
            }
            guard let fields = FormBody.parse(text) else { return .badRequest }
            let again = FormBody.encode(fields)
            precondition(
                FormBody.parse(again) == fields, "form \(fields) encodes as \(again), which parses differently")
        }
        return .ok
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // NIO's parse errors and HTTPTypes' conversion errors: Hummingbird answers 400 and closes; a request under
        // way is abandoned, not answered.
        request = nil
        context.fireErrorCaught(error)
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
