import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// One connection to the remote: HTTP/1 for the router, or the phone's WebSocket on `/ws`, decided by NIO's upgrade
/// handler on the connection's event loop. Its own rather than hummingbird-websocket's: that one decides in a task
/// started on Swift's global executor and closes sockets with swift-websocket, which times the close handshake (and
/// pings) with `Task.sleep`; either one starts libdispatch's worker pool, whose monitor then wakes the process every
/// second for the rest of its life. Here the upgrade decision is a plain call on the event loop (``RemoteRoutes``'
/// admission check), and ``PhoneSocket`` serves the socket in the connection's own task, with its timeout scheduled
/// on the event loop.
struct RemoteChannel: ServerChildChannel, HTTPChannelHandler {
    /// What a connection turned out to be.
    enum Negotiated: Sendable {
        case webSocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, token: String)
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        /// An upgrade that was refused: answered with this response, then closed.
        case refused(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, HTTPResponse.Status, String)
    }

    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    private let hub: RemoteHub
    private let hosts: @Sendable () -> HostPolicy

    init(responder: @escaping HTTPChannelHandler.Responder, hub: RemoteHub, hosts: @escaping @Sendable () -> HostPolicy)
    {
        self.responder = Self.redirectingLateUpgrades(responder)
        self.hub = hub
        self.hosts = hosts
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let hub = hub
            let hosts = hosts
            let limits = hub.options.limits
            // Over a cap the connection is closed as it is accepted: nothing is read from it, nothing written.
            let address = ConnectionCounter.address(of: channel)
            if let refusal = hub.connections.admit(.connection, from: address, limits: limits) {
                hub.refuse(refusal.key, refusal.what)
                channel.close(promise: nil)
                return Value(negotiated: channel.eventLoop.makeFailedFuture(RefusedConnection()), channel: channel)
            }
            channel.closeFuture.whenComplete { _ in hub.connections.release(.connection, from: address) }
            // The admission of this connection's upgrade request, kept for the upgrade or its refusal (set and read
            // on the event loop).
            let admission = NIOLoopBoundBox(RemoteRoutes.Admission?.none, eventLoop: channel.eventLoop)
            let upgrader = NIOTypedWebSocketServerUpgrader<Negotiated>(
                // Frames up to this are read whole, so a message over the limit sent in one frame (as browsers
                // send it) is answered with a close 1009 by PhoneSocket, which enforces the message limit.
                maxFrameSize: max(limits.maximumFrameBytes, hub.options.maximumMessageBytes),
                shouldUpgrade: { channel, head in
                    var decided = Self.request(head).map { RemoteRoutes.admission($0, hosts, hub) } ?? .malformed
                    if case .admitted = decided,
                        let refusal = hub.connections.admit(.webSocket, from: address, limits: limits)
                    {
                        hub.refuse(refusal.key, refusal.what)
                        decided = .refused(.serviceUnavailable, "too many WebSockets open; try again later")
                    }
                    admission.value = decided
                    guard case .admitted = decided else { return channel.eventLoop.makeSucceededFuture(nil) }
                    channel.closeFuture.whenComplete { _ in hub.connections.release(.webSocket, from: address) }
                    // A WebSocket lives no longer than its session: the HTTP timeouts end here.
                    channel.pipeline.removeHandler(name: ConnectionTimeouts.name, promise: nil)
                    return channel.eventLoop.makeSucceededFuture(HTTPHeaders())
                },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        guard case .admitted(let token) = admission.value else {
                            throw ChannelError.inappropriateOperationForState
                        }
                        let socket = try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true))
                        return .webSocket(socket, token: token)
                    }
                })
            let configuration = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try channel.pipeline.syncOperations.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
                        let http = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true))
                        switch admission.value {
                        case nil, .admitted: return .http(http)
                        case .refused(let status, let reason): return .refused(http, status, reason)
                        case .malformed: return .refused(http, .badRequest, "malformed upgrade request")
                        }
                    }
                })
            var pipeline = NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: configuration)
            pipeline.enablePipelining = false  // NIOAsyncChannel reads one request after the other
            pipeline.enableErrorHandling = false  // Hummingbird answers parse errors
            pipeline.enableResponseHeaderValidation = false  // HTTPTypes validated them
            let negotiated = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
                configuration: pipeline)
            // Between the HTTP/1 decoder and the upgrade handler: it sees each request's head and end, and each
            // response's end, from the first request on.
            let upgradeHandler = try channel.pipeline.syncOperations.handler(
                type: NIOTypedHTTPServerUpgradeHandler<Negotiated>.self)
            try channel.pipeline.syncOperations.addHandler(
                ConnectionTimeouts(limits: limits, hub: hub), name: ConnectionTimeouts.name,
                position: .before(upgradeHandler))
            return Value(negotiated: negotiated, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case .http(let http):
                await handleHTTP(asyncChannel: http, logger: logger)
            case .refused(let http, let status, let reason):
                await Self.refuse(http, status: status, reason: reason)
            case .webSocket(let socket, let token):
                await PhoneSocket.serve(socket, token: token, hub: hub)
            }
        } catch is RefusedConnection {
            // Over a connection cap: closed as accepted (counted and logged then).
            try? await value.channel.close()
        } catch let error as ChannelError where error == .inputClosed {
            logger.trace("the connection closed before its first request")
        } catch {
            logger.debug("connection ended before its first request: \(error)")
        }
    }

    /// The upgrade request as HTTPTypes has it (`Host` as the authority), for the router's checks; nil when it has no
    /// valid HTTP field.
    static func request(_ head: HTTPRequestHead) -> Request? {
        guard let request = try? HTTPRequest(head, secure: false, splitCookie: false) else { return nil }
        return Request(head: request, body: .init(buffer: ByteBuffer()))
    }

    /// Answers a refused upgrade with its status and reason, then closes the connection.
    private static func refuse(
        _ http: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, status: HTTPResponse.Status, reason: String
    ) async {
        try? await http.executeThenClose { _, outbound in
            let body = ByteBuffer(string: reason + "\n")
            let head = HTTPResponse(
                status: status,
                headerFields: [
                    .connection: "close", .contentType: "text/plain; charset=utf-8", .date: HTTPDate.now,
                    .contentLength: "\(body.readableBytes)",
                ])
            try await outbound.write(contentsOf: [.head(head), .body(body), .end(nil)])
        }
    }

    /// NIO upgrades only a connection's first request: an upgrade asked for later on a kept-alive connection is sent
    /// to the same address on a new connection (a redirect, then close), as hummingbird-websocket does.
    private static func redirectingLateUpgrades(
        _ responder: @escaping HTTPChannelHandler.Responder
    ) -> HTTPChannelHandler.Responder {
        { request, writer, channel in
            guard request.headers[.upgrade]?.lowercased() == "websocket" else {
                try await responder(request, writer, channel)
                return
            }
            let location = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
            try await writer.writeResponse(
                HTTPResponse(
                    status: .temporaryRedirect,
                    headerFields: [.connection: "close", .location: location, .date: HTTPDate.now]))
            throw LateUpgrade()
        }
    }

    private struct LateUpgrade: Error {}

    /// The connection was over a cap of ``ConnectionLimits`` and was closed as it was accepted.
    private struct RefusedConnection: Error {}
}
