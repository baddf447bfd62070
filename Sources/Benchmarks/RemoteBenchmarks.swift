import CompositorHarness
import Foundation
import Logging
import Messaging

/// The phone remote's benchmarks (issue 8): its idle cost, phone → shown against the local socket in the same run,
/// and many phones at once.
extension DisplayBenchmarks {
    /// Idle wakeups of `run` with the remote on (a code on screen, nobody in control) and, in the same run, of
    /// `run` without it and of `sleep`.
    public func remoteIdle(seconds: Double) throws -> [BenchmarkResult] {
        let sway = try HeadlessSway(outputs: 2, width: width, height: height)
        defer { sway.stop() }
        let port = Int.random(in: 20000..<40000)
        var results: [BenchmarkResult] = []
        func measure(_ subject: String, _ app: ChildProcess) throws {
            // Start-up over: 0.3 s without a switch (a once-a-second tick still shows in the window).
            try app.waitUntilQuiet(for: 0.3, timeout: 20)
            let switches = try app.contextSwitches(during: seconds)
            results.append(
                BenchmarkResult(
                    benchmark: "remote-idle", subject: subject, metric: "wakeups-per-second",
                    value: Double(switches) / seconds, unit: "1/s"))
        }
        let remote = ["--remote", "127.0.0.1:\(port)", "--remote-idle", "1"]
        for (subject, extra) in [("multiscreen-remote-on", remote), ("multiscreen", [])] {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("ms-bench-\(UUID())").path
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: home) }
            let app = try ChildProcess(
                binary,
                ["run", "--log-level", "debug", "--socket", home + "/control.sock", "--config", "/dev/null"]
                    + extra,
                environment: sway.environment.merging(["XDG_STATE_HOME": home]) { $1 })
            defer { app.kill() }
            _ = try app.waitForLine(containing: "first frame committed on HEADLESS-2", timeout: 30)
            try measure(subject, app)
            guard !extra.isEmpty else { continue }
            // After phones: one claims, sends over its WebSocket, releases control and leaves the page (the phone
            // closes its socket, as a browser does when the Release form navigates); one claims, sends and goes
            // quiet until the idle limit (1 s here) ends its control (the kiosk closes its socket). Each time the QR
            // code comes back with a fresh code.
            var link = try sway.waitForNewQRCode(on: "HEADLESS-2")
            for ending in ["left", "timed-out"] {
                guard let token = link.components(separatedBy: "?code=").last,
                    let cookie = try RawWebSocketClient(port: port).claim(code: token, port: port)
                else { throw HarnessError("the phone could not claim control with the code on screen") }
                let phone = try RawWebSocketClient(port: port)
                guard try phone.upgrade(port: port, cookie: cookie) == 101 else {
                    throw HarnessError("the phone's WebSocket upgrade was refused")
                }
                try phone.sendText(#"{"method":"send","params":{"text":"phone"}}"#)
                _ = try phone.readText()
                if ending == "left" {
                    let (released, _) = try RawWebSocketClient(port: port).request(
                        "POST /release HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
                            + "Cookie: \(cookie)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    guard released == 200 else { throw HarnessError("release answered \(released)") }
                    try phone.write([0x88, 0x80, 0, 0, 0, 0])  // a close frame (masked, empty)
                    while try phone.readText() != nil {}  // until the kiosk's answer: the handshake is over
                } else {
                    while try phone.readText() != nil {}  // the receipt, the reason, the kiosk's close frame
                    try phone.write([0x88, 0x80, 0, 0, 0, 0])  // answered as a browser does
                }
                phone.close()
                link = try sway.waitForNewQRCode(on: "HEADLESS-2", other: link)
                // Past the WebSocket close handshake's timeout (10 s, `PhoneSocket.closeTimeout`): a timer a closing
                // connection left behind fires then, and what it starts belongs in the window.
                Thread.sleep(forTimeInterval: 16)
                try measure("multiscreen-remote-after-a-phone-\(ending)", app)
            }
        }
        let control = try ChildProcess("sleep", ["3600"])
        defer { control.kill() }
        results.append(
            BenchmarkResult(
                benchmark: "remote-idle", subject: "sleep", metric: "wakeups-per-second",
                value: Double(try control.contextSwitches(during: seconds)) / seconds, unit: "1/s"))
        return results
    }

    /// A phone's message (a WebSocket text frame written) → committed on both external screens, and → the last
    /// `message.shown` receipt's time, interleaved with the local socket path (request written → committed on both)
    /// to the same Multiscreen. One clock (`CLOCK_MONOTONIC`) for the client and the server.
    public func remoteLatency(messages: Int) throws -> [BenchmarkResult] {
        let port = Int.random(in: 20000..<40000)
        let config = "[remote]\nlisten = \"127.0.0.1:\(port)\"\nidle = 3600\nhold = 3600\n"
        let instance = try Instance(binary: binary, outputs: 3, width: width, height: height, config: config)
        defer { instance.stop() }
        let link = try instance.sway.waitForNewQRCode(on: "HEADLESS-2")
        guard let token = link.components(separatedBy: "?code=").last else { throw HarnessError("no code in \(link)") }
        // The claim on one connection, the WebSocket on another (Hummingbird upgrades only a connection's first
        // request, as browsers open them).
        guard let cookie = try RawWebSocketClient(port: port).claim(code: String(token), port: port) else {
            throw HarnessError("the claim was refused")
        }
        let phone = try RawWebSocketClient(port: port)
        let status = try phone.upgrade(port: port, cookie: cookie)
        guard status == 101 else { throw HarnessError("the WebSocket upgrade answered \(status)") }
        let externals = ["HEADLESS-2", "HEADLESS-3"]
        var phoneToCommit: [Double] = []
        var phoneToShown: [Double] = []
        var phoneToReply: [Double] = []
        var socketToCommit: [Double] = []
        var socketToReply: [Double] = []
        for index in 0..<messages {
            let written = MonotonicClock.nanoseconds()
            try phone.sendText(#"{"method":"send","params":{"text":"phone \#(index)"}}"#)
            // The reply, after any receipt still coming for the previous message (the controller's, say).
            var reply = ""
            while !reply.contains(#""result""#) {
                guard let line = try phone.readText() else { throw HarnessError("the remote closed the socket") }
                reply = line
            }
            guard let range = reply.range(of: #""id":"#),
                let id = Int(reply[range.upperBound...].prefix { $0.isNumber })
            else { throw HarnessError("no id in the reply to phone message \(index): \(reply)") }
            phoneToReply.append(Double(MonotonicClock.nanoseconds() - written) / 1e6)
            // One receipt per screen that shows it: the controller's log counts too; the externals are timed.
            var shown: [String: UInt64] = [:]
            while shown.count < externals.count {
                guard let receipt = try phone.readText() else { throw HarnessError("the remote closed the socket") }
                guard receipt.contains("message.shown"), receipt.contains(#""id":\#(id),"#),
                    let screen = externals.first(where: { receipt.contains(#""screen":"\#($0)""#) }),
                    let at = receipt.range(of: #""shownAt":"#),
                    let time = UInt64(receipt[at.upperBound...].prefix { $0.isNumber })
                else { continue }
                shown[screen] = time
            }
            phoneToShown.append(Double(shown.values.max()! - written) / 1e6)
            var committed: UInt64 = 0
            for screen in externals { committed = max(committed, try waitForCommit(instance, id: id, screen: screen)) }
            phoneToCommit.append(Double(committed - written) / 1e6)
            Thread.sleep(forTimeInterval: 0.05)
            let socketWritten = MonotonicClock.nanoseconds()
            let socketID = try instance.send("socket \(index)")
            socketToReply.append(Double(MonotonicClock.nanoseconds() - socketWritten) / 1e6)
            var socketCommitted: UInt64 = 0
            for screen in externals {
                socketCommitted = max(socketCommitted, try waitForCommit(instance, id: socketID, screen: screen))
            }
            socketToCommit.append(Double(socketCommitted - socketWritten) / 1e6)
            Thread.sleep(forTimeInterval: 0.05)
            if (index + 1) % 50 == 0 {
                Logger(label: "multiscreen.bench").info("remote latency: \(index + 1)/\(messages)")
            }
        }
        var results: [BenchmarkResult] = []
        let subjects = [
            ("phone-to-reply", phoneToReply), ("local-socket-to-reply", socketToReply),
            ("phone-to-commit-both-externals", phoneToCommit),
            ("local-socket-to-commit-both-externals", socketToCommit),
            ("phone-to-shown-receipt-both-externals", phoneToShown),
        ]
        for (subject, values) in subjects {
            for (metric, p) in [("p50", 50.0), ("p99", 99.0)] {
                results.append(
                    BenchmarkResult(
                        benchmark: "remote-latency", subject: subject, metric: metric,
                        value: SampleStatistics.percentile(values, p), unit: "ms", samples: values.count))
            }
        }
        let phoneMedian = SampleStatistics.percentile(phoneToCommit, 50)
        let socketMedian = SampleStatistics.percentile(socketToCommit, 50)
        results.append(
            BenchmarkResult(
                benchmark: "remote-latency", subject: "phone/local-socket-to-commit", metric: "ratio-of-medians",
                value: phoneMedian / socketMedian, unit: "x", samples: messages))
        return results
    }
}
