import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Messaging
import NIOCore

/// The remote's routes, on one router (the WebSocket upgrade included):
///
/// | route            | what                                                                                    |
/// |------------------|-----------------------------------------------------------------------------------------|
/// | `GET /`          | the page: code entry, or the controller's form with a session cookie; `?code=` the claim |
/// |                  | form with the link's code, which the page's script posts at once (a GET never claims)   |
/// | `POST /claim`    | form `code`: claims control (token or short code), sets the session cookie              |
/// | `POST /send`     | form `text`: sends a message (the page without JavaScript)                              |
/// | `GET /receipt`   | `?id=`: how many screens showed a message sent by form; refreshes itself meanwhile      |
/// | `POST /release`  | gives control back                                                                      |
/// | `GET /ws`        | WebSocket: the local socket's JSON methods, one reply per text message                  |
/// | `GET /app.js`, `GET /app.css` | the page's script and style                                                |
/// | `GET /healthz`   | `ok`, for a process supervisor                                                          |
///
/// Every route but `/healthz` checks `Host` and `Origin` (``HostPolicy``); every `POST` needs an `Origin`
/// (browsers send one with every form post), so a request that changes something cannot come from a page of
/// another site or from something that is not a browser's page of this one.
public enum RemoteRoutes {
    public typealias Context = RemoteRequestContext
    static let cookieName = "multiscreen_session"

    public static func router(hub: RemoteHub, hosts: HostPolicy) -> Router<Context> {
        router(hub: hub, hosts: { hosts })
    }

    /// - Parameter hosts: the policy now (a server asked for port 0 learns its port only once bound).
    public static func router(hub: RemoteHub, hosts currentHosts: @escaping @Sendable () -> HostPolicy) -> Router<
        Context
    > {
        let router = Router(context: Context.self)
        let limit = hub.options.maximumMessageBytes
        let formReceipts = FormReceipts()

        router.get("/healthz") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        router.get("/app.js") { request, _ in
            if let refused = refusal(request, currentHosts, hub) { return refused }
            return asset(Page.javascript, type: "text/javascript; charset=utf-8")
        }
        router.get("/app.css") { request, _ in
            if let refused = refusal(request, currentHosts, hub) { return refused }
            return asset(Page.css, type: "text/css; charset=utf-8")
        }
        router.get("/") { request, context in
            if let refused = refusal(request, currentHosts, hub) { return refused }
            if let link = request.uri.queryParameters.get("code") {
                // A GET never claims: link-preview robots, mail scanners and prefetchers fetch links too. The page
                // posts the code itself at once (its script), or on one tap (without JavaScript).
                guard let code = RequestHead.linkCode(link) else {
                    return page(
                        .codeEntry, status: "That link has no valid code. Type the code shown on the screen.", hub: hub,
                        status: .badRequest)
                }
                return page(.claim(code: code), status: nil, hub: hub)
            }
            if let token = sessionToken(request), case .success = hub.authorize(token) {
                return page(.controller, status: nil, hub: hub)
            }
            return page(.codeEntry, status: nil, hub: hub)
        }
        router.post("/claim") { request, context in
            if let refused = refusal(request, currentHosts, hub, changesState: true) { return refused }
            guard let form = try await form(request, context, limit: 1024), let code = form["code"] else {
                return page(.codeEntry, status: "Type the code shown on the screen.", hub: hub, status: .badRequest)
            }
            return claim(code, from: context.clientAddress, session: sessionToken(request), hub: hub)
        }
        router.post("/send") { request, context in
            if let refused = refusal(request, currentHosts, hub, changesState: true) { return refused }
            guard let token = sessionToken(request) else {
                return page(.codeEntry, status: describe(.noSession), hub: hub, status: .forbidden)
            }
            guard let form = try await form(request, context, limit: 3 * limit + 64), let text = form["text"] else {
                return page(.controller, status: "The message is missing or too long.", hub: hub, status: .badRequest)
            }
            switch await hub.perform(.send(text: text, screen: nil), token: token) {
            case .result(_, let result):
                guard case .integer(let number)? = result["id"], number >= 0,
                    case .success(let session) = hub.authorize(token)
                else {
                    return page(.controller, status: "Sent (message \(result["id"]?.serialized ?? "?")).", hub: hub)
                }
                // Its receipts are kept for the page, which comes back for them (without JavaScript nothing can
                // be pushed to it).
                let id = UInt64(number)
                formReceipts.sent(id: id, session: session.id, at: hub.now)
                hub.receipts.watch(id: id, owner: FormReceipts.owner) { formReceipts.shown($0) }
                return receiptPage(id: id, session: session.id, formReceipts, hub: hub)
            case .error(let error) where error.code == .notPermitted:
                let refusal = AccessRefusal(rawValue: error.message)
                return page(
                    .codeEntry, status: refusal.map(describe) ?? error.message, hub: hub, status: .forbidden)
            case .error(let error):
                return page(.controller, status: error.message, hub: hub, status: .badRequest)
            }
        }
        router.get("/receipt") { request, _ in
            if let refused = refusal(request, currentHosts, hub) { return refused }
            guard let token = sessionToken(request) else {
                return page(.codeEntry, status: describe(.noSession), hub: hub, status: .forbidden)
            }
            if case .failure(let refusal) = hub.authorize(token) {
                return page(.codeEntry, status: describe(refusal), hub: hub, status: .forbidden)
            }
            guard let text = request.uri.queryParameters.get("id"), let id = UInt64(text),
                case .success(let session) = hub.authorize(token)
            else {
                return page(
                    .controller, status: "Which message? The receipt's link has no id.", hub: hub,
                    status: .badRequest)
            }
            return receiptPage(id: id, session: session.id, formReceipts, hub: hub)
        }
        router.post("/release") { request, _ in
            if let refused = refusal(request, currentHosts, hub, changesState: true) { return refused }
            if let token = sessionToken(request) { hub.release(token) }
            var response = page(.codeEntry, status: "You released control.", hub: hub)
            response.headers[.setCookie] = "\(cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
            return response
        }
        // The WebSocket upgrade itself happens before the router (RemoteChannel asks `admission`); a plain GET gets
        // the same refusals, or is told to upgrade.
        router.get("/ws") { request, _ in
            switch admission(request, currentHosts, hub) {
            case .admitted:
                return Response(
                    status: .upgradeRequired, headers: [.upgrade: "websocket", .contentType: "text/plain"],
                    body: .init(byteBuffer: ByteBuffer(string: "open /ws as a WebSocket\n")))
            case .refused(let status, let reason):
                return Response(
                    status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(string: reason + "\n")))
            case .malformed:
                return Response(status: .badRequest)
            }
        }
        return router
    }

    /// Whether a request for `/ws` may become a controller's WebSocket: `Host` and `Origin` allowed, and a session
    /// that holds control. Every refusal is counted (and logged, for `Host`/`Origin`).
    enum Admission: Sendable {
        case admitted(token: String)
        case refused(HTTPResponse.Status, String)
        /// Not a valid HTTP request (no `Host` HTTPTypes accepts, say).
        case malformed
    }

    static func admission(_ request: Request, _ hosts: () -> HostPolicy, _ hub: RemoteHub) -> Admission {
        guard request.uri.path == "/ws" else { return .refused(.notFound, "no WebSocket here; it is /ws") }
        if let reason = hostRefusal(request, hosts, hub) { return .refused(.forbidden, reason) }
        guard let token = sessionToken(request) else {
            hub.count("refused.no_session")
            return .refused(.unauthorized, AccessRefusal.noSession.rawValue)
        }
        if case .failure(let refusal) = hub.authorize(token) {
            hub.count("refused.\(refusal.rawValue)")
            return .refused(.forbidden, refusal.rawValue)
        }
        return .admitted(token: token)
    }

    /// HTTP/1 with the phone's WebSocket upgrade (``RemoteChannel``), for `RouterServer` or an `Application`.
    public static func server(hub: RemoteHub, hosts: @escaping @Sendable () -> HostPolicy) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in RemoteChannel(responder: responder, hub: hub, hosts: hosts) }
    }

    public static func server(hub: RemoteHub, hosts: HostPolicy) -> HTTPServerBuilder {
        server(hub: hub, hosts: { hosts })
    }

    // MARK: Helpers

    /// - Parameter session: the request's session cookie: a spent code posted again by the phone that spent it (a
    ///   reload of the claim's page) shows its controller's page again.
    static func claim(_ code: String, from address: String?, session: String?, hub: RemoteHub) -> Response {
        switch hub.claim(code, from: address) {
        case .success(let token):
            var response = page(.controller, status: "You are in control.", hub: hub)
            response.headers[.setCookie] = "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"
            return response
        case .failure(.spentCode) where session.map({ (try? hub.authorize($0).get()) != nil }) == true:
            return page(.controller, status: "You are in control.", hub: hub)
        case .failure(let refusal):
            return page(
                .codeEntry, status: describe(refusal), hub: hub,
                status: refusal == .locked ? .tooManyRequests : .forbidden)
        }
    }

    /// The controller's page with what is known of message `id`: "Sent (message 12)." until a screen shows it,
    /// then "Message 12 shown on 2 screens.". It refreshes itself every second while more may come: until the
    /// first screen shows it (at most the receipt book's lifetime), and for ``receiptSettle`` seconds after the
    /// send, as the other screens show it in their next frames.
    static func receiptPage(id: UInt64, session: Int, _ receipts: FormReceipts, hub: RemoteHub) -> Response {
        guard let entry = receipts.entry(id: id, session: session) else {
            return page(
                .controller, status: "No receipt for message \(id): receipts are kept for the newest sends only.",
                hub: hub, status: .notFound)
        }
        let age = hub.now - entry.sentAt
        let waiting = entry.screens == 0 ? age < Double(hub.receipts.lifetime) / 1e9 : age < receiptSettle
        let status =
            entry.screens == 0
            ? "Sent (message \(id))."
            : "Message \(id) shown on \(entry.screens) \(entry.screens == 1 ? "screen" : "screens")."
        return page(.controller, status: status, hub: hub, refresh: waiting ? "/receipt?id=\(id)" : nil)
    }

    /// Seconds after a form send during which its receipt page keeps refreshing for more screens.
    static let receiptSettle: Double = 3

    static func describe(_ refusal: AccessRefusal) -> String {
        switch refusal {
        case .wrongCode: "That code is not the one on the screen. Check it and try again."
        case .spentCode: "That code was already used. Scan the new code on the screen."
        case .locked: "Too many wrong codes. Code entry is locked for a minute."
        case .superseded: "Another phone took control."
        case .noSession: "You are not in control. Scan the code on the screen."
        case .idle: "Control ended after a quiet minute. Scan the code again."
        case .released: "You released control."
        case .closed: "Control ended when the page closed. Scan the code again."
        }
    }

    static func sessionToken(_ request: Request) -> String? {
        RequestHead.cookie(cookieName, in: request.headers[values: .cookie])
    }

    /// What a state-changing request without `Origin` is answered (403).
    static let originRequired = RequestHead.originRequired

    /// A refusal response when `Host` or `Origin` is not allowed (or, when the request changes state, `Origin` is
    /// missing); nil when the request may go on.
    static func refusal(
        _ request: Request, _ hosts: () -> HostPolicy, _ hub: RemoteHub, changesState: Bool = false
    ) -> Response? {
        let reason: String
        switch RequestHead.refusal(
            authority: request.head.authority, origin: request.headers[.origin], changesState: changesState,
            hosts: hosts())
        {
        case nil: return nil
        case .host(let why):
            logHostRefusal(why, hub)
            reason = why
        case .originRequired:
            hub.refuse("refused.no_origin", "remote request refused: a POST without Origin")
            reason = originRequired
        }
        return Response(
            status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: reason + "\n")))
    }

    /// Why `Host` or `Origin` is not allowed (counted and logged); nil when both are.
    static func hostRefusal(_ request: Request, _ hosts: () -> HostPolicy, _ hub: RemoteHub) -> String? {
        guard
            case .host(let reason) = RequestHead.refusal(
                authority: request.head.authority, origin: request.headers[.origin], changesState: false,
                hosts: hosts())
        else { return nil }
        logHostRefusal(reason, hub)
        return reason
    }

    /// Counts a `Host`/`Origin` refusal; logged the 1st, 10th, 100th… time: a client repeating it cannot flood the log.
    private static func logHostRefusal(_ reason: String, _ hub: RemoteHub) {
        let total = hub.count("refused.origin")
        if RemoteHub.isPowerOfTen(total) {
            hub.logger.notice("remote request refused: \(reason.logSafe) (\(total) so far)")
        }
    }

    /// - Parameter refresh: a path on this origin the page loads again a second later (nil: it stays).
    static func page(
        _ kind: Page.Kind, status line: String?, hub: RemoteHub, status: HTTPResponse.Status = .ok,
        refresh: String? = nil
    ) -> Response {
        var response = asset(
            Page.html(kind, status: line, maximumTextBytes: hub.options.maximumMessageBytes, refresh: refresh),
            type: "text/html; charset=utf-8")
        response.status = status
        return response
    }

    static func asset(_ text: String, type: String) -> Response {
        var headers: HTTPFields = [
            .contentType: type, .cacheControl: "no-store",
            HTTPField.Name("Content-Security-Policy")!: Page.contentSecurityPolicy,
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            // Not "no-referrer": with it Chromium sends `Origin: null` on same-origin form posts.
            HTTPField.Name("Referrer-Policy")!: "same-origin",
        ]
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// An `application/x-www-form-urlencoded` body as a dictionary; nil when it is too large or not a form.
    static func form(_ request: Request, _ context: Context, limit: Int) async throws -> [String: String]? {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch {
            return nil
        }
        guard let text = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) else { return nil }
        return FormBody.parse(text)
    }
}

/// Hummingbird's basic request context with the client's address, whose wrong codes lock it out alone.
public struct RemoteRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's IP address, without the port (an IPv6 one as its /64 prefix); nil when not known (the router
    /// test framework's channel).
    public let clientAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = ConnectionCounter.clientKey(source.channel.remoteAddress)
    }
}
