import CompositorHarness
import Foundation
import Glibc
import Remote
import Testing

/// Reliability R5, the compositor hung: sway is stopped (SIGSTOP) for 10 s while 1000 messages and 100 `status`
/// requests arrive, then continued. The stop lands in a stream of messages, as a real hang does: under `frame` pacing
/// mostly after the compositor took a frame and before it sent that frame's callback, which must not be mistaken
/// for a compositor that runs but stopped presenting the window. Multiscreen must not block (each reply while it is stopped within 100 ms), must
/// stay within a memory bound, and afterwards apply every accepted message and show the newest on the external
/// screen. Under `frame` pacing and under `immediate` pacing, which draws without waiting for a frame callback and so
/// reached Mesa's `eglSwapBuffers` while the compositor could not answer (it waited there for ever).
@Suite(.serialized) struct HungCompositorTests {
    static let messages = 1000
    /// Sent in the second before the stop, at the same pace.
    static let messagesBeforeStop = 100
    static let stoppedSeconds = 10.0

    @Test(arguments: ["frame", "immediate"])
    func aStoppedCompositorBlocksNothingAndEveryMessageIsShownAfterwards(pacing: String) throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 180)
        let app = try MultiscreenProcess(environment: sway.environment, arguments: ["run", "--pacing", pacing])
        try app.waitForScreens(2)
        // A client that gives up soon: a blocked display thread shows as a timeout, not as a test hanging for long.
        let client = ControlClient(path: app.home + "/control.sock", timeoutMilliseconds: 2000)
        _ = try client.exchange(line: #"{"method": "send", "params": {"text": "before"}}"#)
        try waitUntil(timeout: 10, "the first message shown on HEADLESS-2") {
            try Self.shown(client, "HEADLESS-2") == 1
        }
        let before = try sway.screenshot("HEADLESS-2")
        let rssBefore = app.process.residentSetBytes

        defer { sway.signal(SIGCONT) }
        let streamStarted = Date()
        var stopped = Date.distantFuture
        var accepted: [Int] = []
        var slowestStatus = 0.0
        var slowestSend = 0.0
        var rssPeak = rssBefore
        var failure: String?
        let total = Self.messagesBeforeStop + Self.messages
        for number in 1...total {
            // One message every 10 ms, a status request with every tenth.
            let due = Double(number) * Self.stoppedSeconds / Double(Self.messages)
            let wait = due - Date().timeIntervalSince(streamStarted)
            if wait > 0 { usleep(UInt32(wait * 1e6)) }
            if number == Self.messagesBeforeStop + 1 {
                sway.signal(SIGSTOP)
                stopped = Date()
            }
            do {
                var started = Date()
                let reply = try client.exchange(
                    line: #"{"method": "send", "params": {"text": "message \#(number)"}}"#)
                slowestSend = max(slowestSend, Date().timeIntervalSince(started))
                guard let id = Self.id(in: reply) else {
                    failure = "message \(number) not accepted: \(reply.prefix(200))"
                    break
                }
                accepted.append(id)
                if number % 10 == 0 {
                    started = Date()
                    let status = try client.exchange(line: #"{"method": "status"}"#)
                    slowestStatus = max(slowestStatus, Date().timeIntervalSince(started))
                    #expect(status.contains("\"result\""))
                    rssPeak = max(rssPeak, app.process.residentSetBytes)
                }
            } catch {
                let when =
                    stopped == .distantFuture
                    ? "before the stop" : "\(Date().timeIntervalSince(stopped)) s after the stop"
                failure = "message \(number), \(when): \(error)"
                break
            }
        }
        while stopped != .distantFuture && Date().timeIntervalSince(stopped) < Self.stoppedSeconds { usleep(50_000) }
        // Content has waited for seconds and the compositor answers nothing: the waiting screen is reported stale
        // (after ScreenSet.staleAfter, 2 s), by status, the log and a screen.health event, without a window recreated.
        let stoppedHealth = try Self.health(client, "HEADLESS-2")
        #expect(stoppedHealth == "stale", "HEADLESS-2's health while the compositor is stopped: \(stoppedHealth)")
        #expect(
            app.log.contains(
                "HEADLESS-2: nothing shown for 2.0 s although content waits: the compositor does not answer"))
        sway.signal(SIGCONT)
        let continued = Date()
        #expect(failure == nil, "\(failure ?? "")")
        #expect(accepted.count == total, "\(accepted.count) of \(total) messages accepted")
        #expect(slowestStatus < 0.1, "every status within 100 ms while the compositor is stopped: \(slowestStatus) s")
        #expect(slowestSend < 0.1, "every send within 100 ms while the compositor is stopped: \(slowestSend) s")
        let grown = Double(rssPeak - rssBefore) / 1_048_576
        #expect(grown < 8, "RSS grew \(grown) MiB while stopped (bound 8 MiB)")
        print(
            "R5 \(pacing): \(accepted.count) accepted, slowest status \(slowestStatus * 1000) ms, slowest send \(slowestSend * 1000) ms, RSS +\(grown) MiB while stopped"
        )
        guard let last = accepted.last else { return }

        // Everything accepted is applied (all the bus took in, but the status request asking), and the external
        // screen shows the frame with the newest message.
        try waitUntil(timeout: 10, "every accepted request applied") {
            let bus = try Self.status(client)["bus"] as? [String: Any] ?? [:]
            return bus["rejectedFull"] as? Int == 0
                && (bus["enqueued"] as? Int ?? 0) - (bus["applied"] as? Int ?? 0) == 1
        }
        try waitUntil(timeout: 10, "every message's frame shown on HEADLESS-2") {
            try Self.shown(client, "HEADLESS-2") == 1 + accepted.count
        }
        print("R5 \(pacing): all shown \(Date().timeIntervalSince(continued)) s after SIGCONT")
        let status = try Self.status(client)
        let newest = (status["messages"] as? [[String: Any]])?.first
        #expect(newest?["id"] as? Int == last && newest?["text"] as? String == "message \(total)")
        #expect(Self.latency(status, "HEADLESS-2")?["messagesLost"] as? Int == 0, "no message counted lost")
        try sway.waitForScreenshot("HEADLESS-2", "the newest message instead of the first") { shot in
            shot.fraction(differingFrom: before) > 0.001
        }
        #expect(!app.log.contains("recreating its window"), "a hung compositor is no reason to recreate a window")
        try waitUntil(timeout: 10, "HEADLESS-2 healthy again") { try Self.health(client, "HEADLESS-2") == "ok" }
        #expect(app.process.isRunning)
    }

    static func id(in reply: String) -> Int? {
        guard reply.contains("\"result\""), let range = reply.range(of: #""id":"#) else { return nil }
        return Int(reply[range.upperBound...].prefix { $0.isNumber })
    }

    static func status(_ client: ControlClient) throws -> [String: Any] {
        let reply = try client.exchange(line: #"{"method": "status"}"#)
        let json = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
        return json?["result"] as? [String: Any] ?? [:]
    }

    static func latency(_ status: [String: Any], _ screen: String) -> [String: Any]? {
        let screens = status["screens"] as? [[String: Any]] ?? []
        return screens.first { $0["name"] as? String == screen }?["latency"] as? [String: Any]
    }

    static func health(_ client: ControlClient, _ screen: String) throws -> String? {
        let screens = try status(client)["screens"] as? [[String: Any]] ?? []
        return screens.first { $0["name"] as? String == screen }?["health"] as? String
    }

    /// Messages whose frame the compositor showed on `screen` (presented, or its frame callback).
    static func shown(_ client: ControlClient, _ screen: String) throws -> Int {
        guard let latency = latency(try status(client), screen) else { return -1 }
        return (latency["messagesPresented"] as? Int ?? 0) + (latency["messagesFrameDone"] as? Int ?? 0)
    }
}
