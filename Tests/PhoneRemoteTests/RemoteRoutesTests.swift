import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import Messaging
import NIOCore
import Synchronization
import Testing

@testable import PhoneRemote

/// Stands in for the display thread: answers every `send` with the next id and remembers what it got.
final class RecordingSender: MessageSender {
    let received = Mutex<[(message: Message, requestID: String?)]>([])
    var messages: [Message] { received.withLock { $0.map(\.message) } }
    var requestIDs: [String?] { received.withLock { $0.map(\.requestID) } }
    func request(_ message: Message, requestID: String?) async -> Reply {
        let count = received.withLock {
            $0.append((message, requestID))
            return $0.count
        }
        return .sent(id: UInt64(count), screen: nil)
    }
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    let now = Mutex<Double>(1000)
    func advance(_ seconds: Double) { now.withLock { $0 += seconds } }
    func read() -> Double { now.withLock { $0 } }
}

struct RemoteFixture {
    let sender = RecordingSender()
    let clock = ManualClock()
    let hub: RemoteHub
    let app: Application<RouterResponder<RemoteRoutes.Context>>
    /// The authority HummingbirdTesting's router framework gives every request.
    static let host = "localhost"

    init(
        hosts: HostPolicy = HostPolicy(allowedAuthorities: ["localhost"]),
        _ configure: (inout RemoteHub.Options) -> Void = { _ in }
    ) {
        var options = RemoteHub.Options()
        configure(&options)
        let clock = clock
        hub = RemoteHub(options: options, clock: { clock.read() }, sender: sender)
        let router = RemoteRoutes.router(hub: hub, hosts: hosts)
        app = Application(router: router)
    }

    var code: AccessCode {
        guard case .code(let code) = hub.display else { fatalError("no code shown: \(hub.display)") }
        return code
    }

    static func headers(_ extra: HTTPFields = [:], cookie: String? = nil, origin: String? = nil) -> HTTPFields {
        var fields: HTTPFields = [:]
        if let cookie { fields[.cookie] = "\(RemoteRoutes.cookieName)=\(cookie)" }
        if let origin { fields[.origin] = origin }
        fields.append(contentsOf: extra)
        return fields
    }

    /// A form post as a browser sends it: with `Origin` (this server's, unless told otherwise; nil: none).
    static func form(
        _ fields: HTTPFields = [:], cookie: String? = nil, origin: String? = "http://localhost"
    ) -> HTTPFields {
        headers([.contentType: "application/x-www-form-urlencoded"] + fields, cookie: cookie, origin: origin)
    }

    /// Claims `code` as the QR link's page does (its script posts the code, with the page's `Origin`): the session
    /// cookie's value.
    static func claim(_ client: some TestClientProtocol, _ code: String) async throws -> String {
        try await client.execute(
            uri: "/claim", method: .post, headers: form(), body: ByteBuffer(string: "code=\(code)")
        ) {
            response in try #require(sessionCookie(response), "claim answered \(response.status)")
        }
    }

    static func sessionCookie(_ response: TestResponse) -> String? {
        guard let header = response.headers[.setCookie] else { return nil }
        let first = header.split(separator: ";")[0]
        let parts = first.split(separator: "=", maxSplits: 1)
        return parts.count == 2 ? String(parts[1]) : nil
    }
}

extension HTTPFields {
    static func + (lhs: HTTPFields, rhs: HTTPFields) -> HTTPFields {
        var result = lhs
        result.append(contentsOf: rhs)
        return result
    }
}

@Suite struct RemoteRoutesTests {
    @Test func healthz() async throws {
        let fixture = RemoteFixture()
        try await fixture.app.test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "ok\n")
            }
        }
    }

    @Test func pageHasStrictHeadersAndNoInlineScript() async throws {
        let fixture = RemoteFixture()
        try await fixture.app.test(.router) { client in
            try await client.execute(uri: "/", method: .get, headers: RemoteFixture.headers()) { response in
                #expect(response.status == .ok)
                let csp = response.headers[HTTPField.Name("Content-Security-Policy")!] ?? ""
                #expect(csp.contains("default-src 'none'"))
                #expect(csp.contains("script-src 'self'"))
                #expect(!csp.contains("unsafe-inline"))
                #expect(response.headers[.cacheControl] == "no-store")
                let html = String(buffer: response.body)
                #expect(html.contains("action=\"/claim\""))
                #expect(html.contains("<label for=\"code\">"))
                #expect(html.contains("<script src=\"/app.js\"></script>"))
                #expect(!html.contains("<script>"))
                #expect(!html.contains("style="))
            }
            try await client.execute(uri: "/app.js", method: .get, headers: RemoteFixture.headers()) { response in
                let script = String(buffer: response.body)
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(script.contains("textContent"))
                #expect(!script.contains("innerHTML"))
            }
            try await client.execute(uri: "/app.css", method: .get, headers: RemoteFixture.headers()) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test func claimWithTheLinkThenSendAsAFormThenRelease() async throws {
        let fixture = RemoteFixture()
        let code = fixture.code
        try await fixture.app.test(.router) { client in
            // The link's page: the claim as a form with the link's code, posted by the page's script.
            try await client.execute(uri: "/?code=\(code.token)", method: .get, headers: RemoteFixture.headers()) {
                response in
                #expect(response.status == .ok)
                #expect(response.headers[.setCookie] == nil)
                let html = String(buffer: response.body)
                #expect(html.contains("<form id=\"claim\" method=\"post\" action=\"/claim\">"), "\(html)")
                #expect(html.contains("<input type=\"hidden\" name=\"code\" value=\"\(code.token)\">"), "\(html)")
                #expect(html.contains("<button type=\"submit\">Take control</button>"), "\(html)")
            }
            #expect(fixture.hub.display == .code(code))
            let cookie = try await client.execute(
                uri: "/claim", method: .post, headers: RemoteFixture.form(),
                body: ByteBuffer(string: "code=\(code.token)")
            ) { response in
                #expect(response.status == .ok)
                let setCookie = response.headers[.setCookie] ?? ""
                #expect(setCookie.contains("HttpOnly"))
                #expect(setCookie.contains("SameSite=Strict"))
                #expect(String(buffer: response.body).contains("You are in control."))
                #expect(String(buffer: response.body).contains("action=\"/send\""))
                return try #require(RemoteFixture.sessionCookie(response))
            }
            #expect(fixture.hub.display == .inControl)
            // The same code again: spent, except for the phone that spent it (a reload of the claim's answer).
            try await client.execute(
                uri: "/claim", method: .post, headers: RemoteFixture.form(),
                body: ByteBuffer(string: "code=\(code.token)")
            ) { response in
                #expect(response.status == .forbidden)
                #expect(String(buffer: response.body).contains("already used"))
                #expect(response.headers[.setCookie] == nil)
            }
            try await client.execute(
                uri: "/claim", method: .post, headers: RemoteFixture.form(cookie: cookie),
                body: ByteBuffer(string: "code=\(code.token)")
            ) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("action=\"/send\""))
            }
            // With the cookie, the page is the controller's.
            try await client.execute(uri: "/", method: .get, headers: RemoteFixture.headers(cookie: cookie)) {
                response in
                #expect(String(buffer: response.body).contains("action=\"/send\""))
            }
            try await client.execute(
                uri: "/send", method: .post,
                headers: RemoteFixture.form(cookie: cookie, origin: "http://localhost"),
                body: ByteBuffer(string: "text=Hello+%3Cb%3Ephone%3C%2Fb%3E")
            ) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("Sent (message 1)."))
            }
            #expect(fixture.sender.messages == [.send(text: "Hello <b>phone</b>", screen: nil)])
            try await client.execute(
                uri: "/release", method: .post, headers: RemoteFixture.form(cookie: cookie), body: ByteBuffer()
            ) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.setCookie]?.contains("Max-Age=0") == true)
            }
            guard case .code(let fresh) = fixture.hub.display else {
                Issue.record("no code after release")
                return
            }
            #expect(fresh != code)
            try await client.execute(
                uri: "/send", method: .post, headers: RemoteFixture.form(cookie: cookie),
                body: ByteBuffer(string: "text=again")
            ) { response in
                #expect(response.status == .forbidden)
                #expect(String(buffer: response.body).contains("You released control."))
            }
            #expect(fixture.sender.messages.count == 1)
        }
    }

    /// Without JavaScript nothing can be pushed to the page: after Send it names the accepted message and refreshes
    /// itself (a meta refresh to its receipt) until screens have shown it, then says on how many; it stops
    /// refreshing once they have had time to. A receipt is its sender's only.
    @Test func aFormSendGetsItsReceiptsOnAPageThatRefreshesItself() async throws {
        let fixture = RemoteFixture { $0.policy.hold = 10 }
        let code = fixture.code
        let refresh = "<meta http-equiv=\"refresh\" content=\"1; url=/receipt?id=1\">"
        try await fixture.app.test(.router) { client in
            let cookie = try await RemoteFixture.claim(client, code.token)
            try await client.execute(
                uri: "/send", method: .post, headers: RemoteFixture.form(cookie: cookie, origin: "http://localhost"),
                body: ByteBuffer(string: "text=Gate+7")
            ) { response in
                #expect(response.status == .ok)
                let html = String(buffer: response.body)
                #expect(html.contains("Sent (message 1)."))
                #expect(html.contains(refresh), "\(html)")
                #expect(html.contains("action=\"/send\""), "the form stays, for the next message")
            }
            func receipt(_ id: Int = 1, cookie: String? = cookie) async throws -> (HTTPResponse.Status, String) {
                try await client.execute(
                    uri: "/receipt?id=\(id)", method: .get, headers: RemoteFixture.headers(cookie: cookie)
                ) { ($0.status, String(buffer: $0.body)) }
            }
            var (status, html) = try await receipt()
            #expect(status == .ok && html.contains("Sent (message 1).") && html.contains(refresh), "\(html)")
            fixture.hub.receipts.take(RemoteWebSocketTests.frameShown(screen: "HEADLESS-2", ids: [1], shownAt: 2))
            (status, html) = try await receipt()
            #expect(html.contains("Message 1 shown on 1 screen.") && html.contains(refresh), "\(html)")
            fixture.hub.receipts.take(RemoteWebSocketTests.frameShown(screen: "HEADLESS-3", ids: [1], shownAt: 3))
            (status, html) = try await receipt()
            #expect(html.contains("Message 1 shown on 2 screens.") && html.contains(refresh), "\(html)")
            // Settled: the page stays.
            fixture.clock.advance(RemoteRoutes.receiptSettle + 0.5)
            (status, html) = try await receipt()
            #expect(html.contains("Message 1 shown on 2 screens.") && !html.contains("http-equiv"), "\(html)")
            #expect(html.contains("<p id=\"status\" role=\"status\" aria-live=\"polite\">Message 1 shown"))
            // No such send, no session.
            (status, html) = try await receipt(2)
            #expect(status == .notFound && html.contains("No receipt for message 2"), "\(html)")
            (status, html) = try await receipt(cookie: nil)
            #expect(status == .forbidden && html.contains("You are not in control."), "\(html)")
            // After the hold a fresh code shows; a newer phone claims it: the first is told, and the receipt is not
            // the newcomer's.
            fixture.clock.advance(7)
            fixture.hub.tick()
            let newer = try await RemoteFixture.claim(client, fixture.code.token)
            (status, html) = try await receipt()
            #expect(status == .forbidden && html.contains("Another phone took control."), "\(html)")
            (status, html) = try await receipt(cookie: newer)
            #expect(status == .notFound, "\(html)")
        }
    }

    @Test func claimWithTheShortCodeByForm() async throws {
        let fixture = RemoteFixture()
        let code = fixture.code
        try await fixture.app.test(.router) { client in
            try await client.execute(
                uri: "/claim", method: .post, headers: RemoteFixture.form(),
                body: ByteBuffer(string: "code=\(code.short.lowercased())")
            ) { response in
                #expect(response.status == .ok)
                #expect(RemoteFixture.sessionCookie(response) != nil)
            }
            try await client.execute(
                uri: "/claim", method: .post, headers: RemoteFixture.form(), body: ByteBuffer(string: "code=WRONG")
            ) { response in
                #expect(response.status == .forbidden)
                #expect(RemoteFixture.sessionCookie(response) == nil)
            }
        }
    }

    /// A link-preview robot (a chat app unfurling the link, a mail scanner, a prefetch) GETs the QR code's link with
    /// no `Origin` and no cookies, and runs no script: the code stays valid and unclaimed, and the phone that opens
    /// the link next claims it. A link whose code cannot be one is not put in the page.
    @Test func aLinkPreviewRobotSpendsNoCode() async throws {
        let fixture = RemoteFixture()
        let code = fixture.code
        try await fixture.app.test(.router) { client in
            for _ in 0..<3 {
                try await client.execute(uri: "/?code=\(code.token)", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.setCookie] == nil)
                    #expect(String(buffer: response.body).contains("value=\"\(code.token)\""))
                }
                try await client.execute(uri: "/?code=\(code.short)", method: .get) { #expect($0.status == .ok) }
            }
            #expect(fixture.hub.display == .code(code))
            #expect(fixture.hub.counters["claims"] ?? 0 == 0)
            #expect(fixture.hub.counters["refused.wrong_code"] ?? 0 == 0)
            for link in ["%3Cscript%3E", String(repeating: "a", count: 65), "a%22b"] {
                try await client.execute(uri: "/?code=\(link)", method: .get) { response in
                    #expect(response.status == .badRequest)
                    let html = String(buffer: response.body)
                    #expect(!html.contains("id=\"claim\"") && !html.contains("<script>") && !html.contains("aaaaa"))
                    #expect(html.contains("That link has no valid code."))
                }
            }
            let cookie = try await RemoteFixture.claim(client, code.token)
            #expect(fixture.hub.display == .inControl)
            #expect(throws: Never.self) { try fixture.hub.authorize(cookie).get() }
        }
        #expect(fixture.hub.counters["claims"] == 1)
    }

    @Test func wrongCodesLockWith429() async throws {
        let fixture = RemoteFixture { $0.policy.failureBudget = 2 }
        let code = fixture.code
        try await fixture.app.test(.router) { client in
            for _ in 0..<2 {
                try await client.execute(
                    uri: "/claim", method: .post, headers: RemoteFixture.form(), body: ByteBuffer(string: "code=nope")
                ) { #expect($0.status == .forbidden) }
            }
            try await client.execute(
                uri: "/claim", method: .post, headers: RemoteFixture.form(),
                body: ByteBuffer(string: "code=\(code.token)")
            ) { response in
                #expect(response.status == .tooManyRequests)
            }
        }
        #expect(fixture.hub.counters["lockouts"] == 1)
    }

    /// Browsers send `Origin` with every form post; a state-changing request without one (a script outside a
    /// browser, a link-preview robot replaying a form) is refused with 403 and says why.
    @Test func postWithoutOriginIsRefused() async throws {
        let fixture = RemoteFixture()
        let code = fixture.code
        let token = try fixture.hub.claim(code.token).get()
        try await fixture.app.test(.router) { client in
            for (uri, body) in [
                ("/claim", "code=\(code.short)"), ("/send", "text=hello"), ("/release", ""),
            ] {
                try await client.execute(
                    uri: uri, method: .post, headers: RemoteFixture.form(cookie: token, origin: nil),
                    body: ByteBuffer(string: body)
                ) { response in
                    #expect(response.status == .forbidden, "\(uri)")
                    #expect(String(buffer: response.body) == RemoteRoutes.originRequired + "\n")
                }
            }
            // The same requests with the page's Origin go through.
            try await client.execute(
                uri: "/send", method: .post, headers: RemoteFixture.form(cookie: token),
                body: ByteBuffer(string: "text=hello")
            ) { #expect($0.status == .ok) }
        }
        #expect(fixture.hub.counters["refused.no_origin"] == 3)
        #expect(fixture.sender.messages == [.send(text: "hello", screen: nil)])
        // Neither claimed nor released by the refused requests.
        #expect(fixture.hub.display == .inControl)
        #expect(throws: Never.self) { try fixture.hub.authorize(token).get() }
    }

    @Test func foreignOriginIsRefused() async throws {
        let fixture = RemoteFixture()
        let code = fixture.code
        try await fixture.app.test(.router) { client in
            // Cross-site form post, and a sandboxed page's "null" origin.
            for origin in ["http://evil.example", "null", "http://localhost.evil.example"] {
                try await client.execute(
                    uri: "/claim", method: .post, headers: RemoteFixture.form(origin: origin),
                    body: ByteBuffer(string: "code=\(code.short)")
                ) { #expect($0.status == .forbidden) }
            }
            try await client.execute(uri: "/", method: .get, headers: [.origin: "http://localhost"]) {
                #expect($0.status == .ok)
            }
        }
        // The code was never claimed.
        #expect(fixture.hub.display == .code(code))
        #expect(fixture.hub.counters["refused.origin"] == 3)
    }

    /// A DNS-rebinding page reaches the server under the attacker's name: a Host not in the allow-list. (The
    /// router test framework's Host is always "localhost", so here localhost is the foreign name.)
    @Test func foreignHostIsRefused() async throws {
        let fixture = RemoteFixture(hosts: HostPolicy(host: "192.0.2.10", port: 8080))
        let code = fixture.code
        try await fixture.app.test(.router) { client in
            try await client.execute(uri: "/?code=\(code.token)", method: .get) { response in
                #expect(response.status == .forbidden)
                #expect(String(buffer: response.body).contains("Host localhost is not served here"))
            }
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
        }
        #expect(fixture.hub.display == .code(code))
    }

    @Test func hostPolicy() {
        let loopback = HostPolicy(host: "127.0.0.1", port: 8080)
        #expect(loopback.refusal(host: "127.0.0.1:8080", origin: nil) == nil)
        #expect(loopback.refusal(host: "localhost:8080", origin: "http://localhost:8080") == nil)
        #expect(loopback.refusal(host: "LOCALHOST:8080", origin: nil) == nil)
        #expect(loopback.refusal(host: "evil.example:8080", origin: nil) != nil)
        #expect(loopback.refusal(host: "127.0.0.1:8081", origin: nil) != nil)
        #expect(loopback.refusal(host: nil, origin: nil) != nil)
        #expect(loopback.refusal(host: "127.0.0.1:8080", origin: "http://evil.example") != nil)
        #expect(loopback.refusal(host: "127.0.0.1:8080", origin: "null") != nil)
        let lan = HostPolicy(host: "192.168.1.20", port: 80, extraHosts: ["kiosk.local", "kiosk.lan:8443"])
        #expect(lan.refusal(host: "192.168.1.20:80", origin: "https://kiosk.lan:8443") == nil)
        #expect(lan.refusal(host: "kiosk.local:80", origin: nil) == nil)
        #expect(lan.refusal(host: "localhost:80", origin: nil) != nil)
        #expect(HostPolicy(host: "::1", port: 9).allowedAuthorities.contains("[::1]:9"))
    }

    @Test func oversizeFormIsRefused() async throws {
        let fixture = RemoteFixture { $0.maximumMessageBytes = 100 }
        let code = fixture.code
        try await fixture.app.test(.router) { client in
            let cookie = try await RemoteFixture.claim(client, code.token)
            try await client.execute(
                uri: "/send", method: .post, headers: RemoteFixture.form(cookie: cookie),
                body: ByteBuffer(string: "text=" + String(repeating: "x", count: 1000))
            ) { #expect($0.status == .badRequest) }
        }
        #expect(fixture.sender.messages.isEmpty)
    }

    @Test func webSocketNeedsASession() async throws {
        let fixture = RemoteFixture()
        try await fixture.app.test(.router) { client in
            try await client.execute(
                uri: "/ws", method: .get,
                headers: RemoteFixture.headers([.connection: "upgrade", .upgrade: "websocket"])
            ) { #expect($0.status == .unauthorized) }
            try await client.execute(
                uri: "/ws", method: .get,
                headers: RemoteFixture.headers([.connection: "upgrade", .upgrade: "websocket"], cookie: "forged")
            ) { #expect($0.status == .forbidden) }
            // A session that holds control, asking without an upgrade: told to upgrade.
            let cookie = try await RemoteFixture.claim(client, fixture.code.token)
            try await client.execute(uri: "/ws", method: .get, headers: RemoteFixture.headers(cookie: cookie)) {
                #expect($0.status == .upgradeRequired)
            }
        }
    }
}

@Suite struct RemoteHubTests {
    @Test func methodsOutsideTheAllowListAreNotPermitted() async throws {
        let fixture = RemoteFixture()
        let token = try fixture.hub.claim(fixture.code.token).get()
        let roleSet = await fixture.hub.handle(
            json: Array(#"{"method":"role.set","params":{"screen":"a","role":"controller"}}"#.utf8), token: token
        ).line
        #expect(roleSet?.contains("-32004") == true)
        let subscribe = await fixture.hub.handle(json: Array(#"{"method":"events.subscribe"}"#.utf8), token: token).line
        #expect(subscribe?.contains("-32004") == true)
        let card = await fixture.hub.handle(
            json: Array(#"{"method":"card.open","params":{"screen":"a","text":"t"}}"#.utf8), token: token
        ).line
        #expect(card?.contains("-32004") == true)
        let sent = await fixture.hub.handle(
            json: Array(#"{"jsonrpc":"2.0","id":7,"method":"send","params":{"text":"hi"}}"#.utf8), token: token
        ).line
        #expect(sent == #"{"id":7,"jsonrpc":"2.0","result":{"id":1,"screen":null}}"#)
        let malformed = await fixture.hub.handle(json: Array("{".utf8), token: token).line
        #expect(malformed?.contains("-32700") == true)
        let invalidUTF8 = await fixture.hub.handle(json: [0x22, 0xff, 0x22], token: token).line
        #expect(invalidUTF8?.contains("error") == true)
        #expect(fixture.sender.messages == [.send(text: "hi", screen: nil)])
    }

    @Test func cardsWhenConfigured() async throws {
        let fixture = RemoteFixture { $0.methods = [.send, .openCard, .closeCard] }
        let token = try fixture.hub.claim(fixture.code.token).get()
        _ = await fixture.hub.handle(
            json: Array(#"{"method":"card.open","params":{"screen":"a","text":"t"}}"#.utf8), token: token
        ).line
        #expect(fixture.sender.messages == [.openCard(screen: "a", text: "t")])
    }

    @Test func statusCounters() throws {
        let fixture = RemoteFixture()
        fixture.clock.advance(5)
        #expect(fixture.hub.counters["codeAgeSeconds"] == 5)
        #expect(fixture.hub.counters["controllerActive"] == 0)
        let token = try fixture.hub.claim(fixture.code.token).get()
        fixture.clock.advance(7)
        _ = fixture.hub.authorize(token)
        let counters = fixture.hub.counters
        #expect(counters["controllerActive"] == 1)
        #expect(counters["controllerSeconds"] == 7)
        #expect(counters["codeAgeSeconds"] == nil)
        #expect(counters["claims"] == 1)
        #expect(counters["locked"] == 0)
    }

    @Test func idleSessionIsKickedOnTick() throws {
        let fixture = RemoteFixture()
        let token = try fixture.hub.claim(fixture.code.token).get()
        let kicked = Mutex<[AccessRefusal]>([])
        _ = try fixture.hub.attach(token) { reason in kicked.withLock { $0.append(reason) } }.get()
        fixture.clock.advance(61)
        fixture.hub.tick()
        #expect(kicked.withLock { $0 } == [.idle])
        guard case .code = fixture.hub.display else {
            Issue.record("no code after idle")
            return
        }
    }

    @Test func displayChangesAreReported() throws {
        let displays = Mutex<[RemoteDisplay]>([])
        let clock = ManualClock()
        let hub = RemoteHub(
            clock: { clock.read() }, sender: RecordingSender(),
            onDisplay: { display in displays.withLock { $0.append(display) } })
        guard case .code(let code) = hub.display else {
            Issue.record("no code")
            return
        }
        let token = try hub.claim(code.token).get()
        hub.release(token)
        let seen = displays.withLock { $0 }
        #expect(seen.count == 3)
        #expect(seen[0] == .code(code))
        #expect(seen[1] == .inControl)
        if case .code(let fresh) = seen[2] { #expect(fresh != code) } else { Issue.record("not a code: \(seen[2])") }
    }
}
