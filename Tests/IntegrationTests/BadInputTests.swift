import CompositorHarness
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Bad input everywhere at once against a real instance on a real compositor: a 10 MB line, bytes that are not
/// UTF-8, JSON nested past the parser's limit, 1000 connections at once, clients that never read their replies and
/// clients that vanish mid-request. Each gets a precise error or is counted, the screens keep drawing, and once the
/// clients are gone the process holds no more descriptors than before and little more memory.
@Suite(.serialized) struct BadInputTests {
    private static let parseError = #""code":-32700"#
    private static let requestTooLarge = #""code":-32002"#
    private static let busy = #""code":-32003"#

    @Test func badInputEverywhereIsRefusedCountedAndLeavesNothingBehind() throws {
        try Self.allowDescriptors(1_200)
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        _ = try app.request(#"{"method": "send", "params": {"text": "warm up", "screen": "HEADLESS-2"}}"#)
        var shown = try sway.waitForScreenshot("HEADLESS-2") { showsScreen($0, index: 1) }
        let descriptorsBefore = app.process.openFileDescriptorCount
        var refused = 0
        var resident: [Int] = []
        // Two storms: the first also warms what any first use allocates (the texts drawn, status replies, the
        // server's queues), so memory is compared between the ends of the two. Each ends with every client gone.
        for round in 1...2 {
            let storm = try storm(app, sway, round: round, before: shown, descriptors: descriptorsBefore)
            refused += storm.refused
            try waitUntil(timeout: 10, "descriptors back to \(descriptorsBefore)") {
                app.process.openFileDescriptorCount <= descriptorsBefore
            }
            // The screens still draw.
            _ = try app.request(
                #"{"method": "send", "params": {"text": "after the storm", "screen": "HEADLESS-2"}}"#)
            shown = try sway.waitForScreenshot("HEADLESS-2", "the message after the storm") {
                showsScreen($0, index: 1) && $0.fraction(differingFrom: storm.shown) > 0.001
            }
            try app.process.waitUntilQuiet()
            resident.append(app.process.residentSetBytes)
        }

        // Everything is counted in `status`, and logged without flooding.
        let control = try app.statusResult()["control"] as? [String: Any] ?? [:]
        #expect(control["malformed"] as? Int ?? 0 >= 6, "\(control)")
        #expect(control["connectionsRefusedBusy"] as? Int == refused, "\(control)")
        #expect(control["repliesDroppedClosedConnection"] as? Int ?? 0 >= 2, "\(control)")
        for power in ["1", "10", "100", "1000"] { #expect(app.log.contains("(\(power) refused so far)")) }
        #expect(!app.log.contains("(2 refused so far)"), "one line per power of ten, not one per connection")
        #expect(app.process.isRunning)
        // The second storm leaves no more memory behind than noise: kept buffers would show as megabytes (1 MiB
        // per silent client, 64 KiB per held line, 10 MB if the long line were kept).
        let grownMiB = Double(resident[1] - resident[0]) / 1_048_576
        print(
            "bad input: RSS \(resident[0] / 1024) KiB after the first storm, \(resident[1] / 1024) KiB after the second"
        )
        #expect(grownMiB < 1, "RSS grew \(grownMiB) MiB from one storm to the next")
    }

    /// One storm of bad input; returns how many connections were refused and the external screen as last seen.
    private func storm(
        _ app: MultiscreenProcess, _ sway: HeadlessSway, round: Int, before: Screenshot, descriptors: Int
    ) throws -> (refused: Int, shown: Screenshot) {
        let socket = app.home + "/control.sock"
        // A 10 MB line: one error, and the same connection goes on being served.
        do {
            let huge = try LineConnection(path: socket)
            huge.write(String(repeating: "x", count: 10 << 20) + "\n" + #"{"method": "status"}"# + "\n")
            #expect(try huge.readLine(timeout: 10)?.contains(Self.requestTooLarge) == true)
            #expect(try huge.readLine(timeout: 10)?.contains(#""result""#) == true)
        }

        // Not UTF-8, and nesting past 512 levels: parse errors that say why.
        do {
            let odd = try LineConnection(path: socket)
            odd.write(bytes: [0x7B, 0xFF, 0xFE, 0xC3, 0x28, 0x7D, 0x0A])
            #expect(try odd.readLine()?.contains(Self.parseError) == true)
            odd.write(String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "\n")
            let nested = try odd.readLine() ?? ""
            #expect(nested.contains(Self.parseError) && nested.contains("nested"), "\(nested.prefix(200))")
        }

        // 1000 connections at once: the server's maximum is served, every other one is told `busy` and closed.
        var crowd: [LineConnection] = []
        for _ in 0..<1_000 { crowd.append(try LineConnection(path: socket)) }
        var refused = 0
        var served = 0
        for connection in crowd {
            // A refused connection has its error line waiting; a served one has nothing until it asks (one the
            // server has not reached yet is told `busy` in answer to its request).
            if let line = try? connection.readLine(timeout: 0.05) {
                #expect(line.contains(Self.busy), "\(line.prefix(200))")
                refused += 1
                continue
            }
            connection.write(#"{"method": "status"}"# + "\n")
            let line = try connection.readLine(timeout: 10) ?? ""
            if line.contains(Self.busy) {
                refused += 1
            } else {
                #expect(line.contains(#""result""#), "\(line.prefix(200))")
                served += 1
            }
        }
        #expect(served > 0 && served <= 64 && served + refused == 1_000, "served \(served), refused \(refused)")
        crowd.removeAll()
        // Until the server has seen the crowd go, its slots are taken and the next client would be refused too.
        try waitUntil(timeout: 10, "the crowd's connections closed") {
            app.process.openFileDescriptorCount <= descriptors
        }

        // Clients that never read: they subscribe and pipeline requests until their replies fill the server's
        // output buffer, then stop reading; a client that does read is still answered at once.
        let request = #"{"method": "status"}"# + "\n"
        var silent: [LineConnection] = []
        for _ in 0..<4 {
            let connection = try LineConnection(path: socket)
            connection.write(#"{"method": "events.subscribe"}"# + "\n")
            connection.writeUntilStalled([UInt8](String(repeating: request, count: 200).utf8))
            silent.append(connection)
        }
        let messageDuringStall = try app.request(
            #"{"method": "send", "params": {"text": "past the silent ones", "screen": "HEADLESS-2"}}"#)
        #expect(messageDuringStall.contains(#""result""#))
        let past = try sway.waitForScreenshot("HEADLESS-2", "the message sent past the silent clients") {
            showsScreen($0, index: 1) && $0.fraction(differingFrom: before) > 0.001
        }
        silent.removeAll()

        // Clients that vanish: half a request then gone; a whole request and gone before its reply.
        try LineConnection(path: socket).write(#"{"method": "send", "params": {"te"#)
        try LineConnection(path: socket).write(
            #"{"method": "send", "params": {"text": "nobody waits for this", "screen": "HEADLESS-2"}}"# + "\n")
        try app.waitForLogCount("nobody waits for this", count: round)
        return (refused, past)

    }

    /// Raises this process's descriptor limit to at least `count` (within the hard limit), for 1000 clients.
    private static func allowDescriptors(_ count: rlim_t) throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        guard limit.rlim_cur < count else { return }
        try #require(limit.rlim_max >= count, "the hard descriptor limit \(limit.rlim_max) is below \(count)")
        limit.rlim_cur = count
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
