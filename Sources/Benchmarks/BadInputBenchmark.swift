import CompositorHarness
import Foundation
import Messaging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension DisplayBenchmarks {
    /// Whether bad input on the control socket slows the screens: the frames of 5 local `send`s a second (enqueue →
    /// commit on each screen, from the kiosk's log) and the replies to 10 local `status` requests a second, first
    /// alone for `seconds / 2`, then as long again while storms of bad input follow each other without pause. A
    /// storm is what `BadInputTests` sends once: a 10 MB line, bytes that are not UTF-8, JSON nested 600 deep, 1000
    /// connections at once, 4 subscribers that pipeline requests and never read, and clients that vanish
    /// mid-request. The timed requests go over one connection opened before the storms, as a control panel's
    /// would be: the 1000 connections take every other slot, and a new connection would be told `busy`.
    public func badInput(seconds: Double) throws -> [BenchmarkResult] {
        try Self.allowDescriptors(1_200)
        let instance = try Instance(binary: binary, outputs: 2, width: width, height: height, cpus: cpus)
        defer { instance.stop() }
        let socket = instance.home + "/control.sock"
        let panel = try LineConnection(path: socket)
        let storms = StormState()
        var probe = 0
        var statusByPart: [StormPart: [Double]] = [:]

        /// Local requests over `panel` for `duration`: status latencies and the ids of the timed messages. Each
        /// status latency is also filed under the part of a storm that was under way when it was asked.
        func local(for duration: Double) throws -> (latencies: [Double], sent: [Int]) {
            var latencies: [Double] = []
            var sent: [Int] = []
            let end = Date().addingTimeInterval(duration)
            var next = Date()
            var turn = 0
            while Date() < end {
                let part = storms.part
                let started = MonotonicClock.nanoseconds()
                panel.write(#"{"method":"status"}"# + "\n")
                guard let status = try panel.readLine(timeout: 10), status.contains(#""result""#) else {
                    throw HarnessError("the panel's status request went unanswered")
                }
                latencies.append(Double(MonotonicClock.nanoseconds() - started) / 1e6)
                statusByPart[part, default: []].append(latencies[latencies.count - 1])
                turn += 1
                if turn % 2 == 0 {
                    probe += 1
                    panel.write(MessageCodec.encodeRequest(.send(text: "probe \(probe)", screen: nil)) + "\n")
                    let reply = try panel.readLine(timeout: 10) ?? ""
                    guard let range = reply.range(of: #""id":"#),
                        let id = Int(reply[range.upperBound...].prefix { $0.isNumber })
                    else { throw HarnessError("unexpected reply to send: \(reply.prefix(200))") }
                    sent.append(id)
                }
                next = next.addingTimeInterval(1.0 / 10)
                let wait = next.timeIntervalSinceNow
                if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            }
            return (latencies, sent)
        }

        let alone = try local(for: seconds / 2)
        let before = try Self.resources(pid: instance.app.pid)
        statusByPart = [:]
        let finished = DispatchGroup()
        finished.enter()
        let pid = instance.app.pid
        let stormer = Thread {
            defer { finished.leave() }
            while !storms.stopped {
                do {
                    try Self.storm(socket: socket, state: storms)
                    storms.part = .none
                    storms.completed(residentMiB: try Self.resources(pid: pid).rss)
                } catch {
                    storms.failed("\(error)")
                    return
                }
            }
        }
        stormer.stackSize = 1 << 20
        stormer.start()
        let loaded: (latencies: [Double], sent: [Int])
        do {
            defer {
                storms.stop()
                finished.wait()
            }
            loaded = try local(for: seconds / 2)
        }
        if let failure = storms.failure { throw HarnessError("a storm failed: \(failure)") }
        // The storms' connections closing: until the kiosk holds no more descriptors than before them, or 10 s.
        let closing = Date().addingTimeInterval(10)
        var after = try Self.resources(pid: instance.app.pid)
        while after.fds > before.fds && Date() < closing {
            Thread.sleep(forTimeInterval: 0.1)
            after = try Self.resources(pid: instance.app.pid)
        }

        var results: [BenchmarkResult] = []
        for (subject, values) in [("local-status-alone", alone.latencies), ("local-status-storms", loaded.latencies)] {
            for (metric, p) in [("p50", 50.0), ("p99", 99.0)] {
                results.append(
                    BenchmarkResult(
                        benchmark: "bad-input", subject: subject, metric: metric,
                        value: SampleStatistics.percentile(values, p), unit: "ms", samples: values.count))
            }
        }
        for part in StormPart.allCases.dropFirst() {
            guard let values = statusByPart[part] else { continue }
            results.append(
                BenchmarkResult(
                    benchmark: "bad-input", subject: "local-status-storms/\(part)", metric: "p99",
                    value: SampleStatistics.percentile(values, 99), unit: "ms", samples: values.count))
        }
        let commits = Self.enqueueToCommit(in: instance.app.output)
        for screen in ["HEADLESS-1", "HEADLESS-2"] {
            for ids in [alone.sent, loaded.sent] where ids.contains(where: { commits[screen]?[$0] == nil }) {
                let lost = ids.filter { commits[screen]?[$0] == nil }.count
                throw HarnessError("\(lost) of \(ids.count) messages never shown on \(screen)")
            }
            results += Self.framesUnderLoad(
                benchmark: "bad-input", screen: screen, commits: commits, quiet: ("alone", alone.sent),
                loaded: ("storms", loaded.sent))
        }
        results.append(
            BenchmarkResult(
                benchmark: "bad-input", subject: "storms", metric: "completed", value: Double(storms.count),
                unit: "count"))
        // What the kiosk counted, from its own `status`.
        panel.write(#"{"method":"status"}"# + "\n")
        let status = try panel.readLine(timeout: 10) ?? ""
        for counter in ["malformed", "connectionsRefusedBusy", "repliesDroppedClosedConnection"] {
            guard let range = status.range(of: "\"\(counter)\":"),
                let value = Double(status[range.upperBound...].prefix { $0.isNumber })
            else { continue }
            results.append(
                BenchmarkResult(
                    benchmark: "bad-input", subject: "kiosk-status", metric: counter, value: value, unit: "count"))
        }
        // The first storm also warms what any first use allocates (texts drawn, replies, the server's queues), so
        // what the storms leave behind is read from the end of the first to the end of the last.
        let resident = storms.residentAfterEach
        if let first = resident.first, let last = resident.last {
            results.append(
                BenchmarkResult(
                    benchmark: "bad-input", subject: "kiosk", metric: "rss-growth-after-first-storm",
                    value: last - first, unit: "MiB", samples: resident.count))
        }
        for (when, measured) in [("before-storms", before), ("after-storms", after)] {
            results.append(
                BenchmarkResult(
                    benchmark: "bad-input", subject: "kiosk", metric: "rss-\(when)", value: measured.rss, unit: "MiB"))
            results.append(
                BenchmarkResult(
                    benchmark: "bad-input", subject: "kiosk", metric: "fds-\(when)", value: measured.fds,
                    unit: "count"))
        }
        return results
    }

    /// A 10 MB line and a status request after it, made once: building it in every storm would cost this process
    /// tens of milliseconds of CPU that its own timing thread would then wait for.
    private static let longLine = [UInt8](
        (String(repeating: "x", count: 10 << 20) + "\n" + #"{"method":"status"}"# + "\n").utf8)

    /// One storm of bad input on the control socket at `socket`; every connection it opens is closed when it
    /// returns. Throws when the kiosk answers something other than the precise error each input deserves.
    private static func storm(socket: String, state: StormState) throws {
        func expect(_ line: String?, _ fragment: String, _ what: String) throws {
            guard let line, line.contains(fragment) else {
                throw HarnessError("\(what): expected \(fragment), got \(line?.prefix(200) ?? "nothing")")
            }
        }
        state.part = .longLine
        do {
            let huge = try LineConnection(path: socket)
            huge.write(bytes: Self.longLine)
            try expect(try huge.readLine(timeout: 10), #""code":-32002"#, "a 10 MB line")
            try expect(try huge.readLine(timeout: 10), #""result""#, "status after a 10 MB line")
        }
        state.part = .notUTF8OrTooDeep
        do {
            let odd = try LineConnection(path: socket)
            odd.write(bytes: [0x7B, 0xFF, 0xFE, 0xC3, 0x28, 0x7D, 0x0A])
            try expect(try odd.readLine(timeout: 10), #""code":-32700"#, "bytes that are not UTF-8")
            odd.write(String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "\n")
            try expect(try odd.readLine(timeout: 10), "nested", "JSON nested 600 deep")
        }
        if state.stopped { return }
        // 1000 connections at once; whoever is refused has been told why.
        state.part = .crowd
        var crowd: [LineConnection] = []
        for _ in 0..<1_000 { crowd.append(try LineConnection(path: socket)) }
        for connection in crowd {
            if let line = try? connection.readLine(timeout: 0.01) { try expect(line, #""code":-32003"#, "busy") }
        }
        crowd.removeAll()
        if state.stopped { return }
        // Subscribers that pipeline requests and never read their replies.
        state.part = .silentSubscribers
        var silent: [LineConnection] = []
        let batch = [UInt8](String(repeating: #"{"method":"status"}"# + "\n", count: 200).utf8)
        for _ in 0..<4 {
            let connection = try LineConnection(path: socket)
            connection.write(#"{"method":"events.subscribe"}"# + "\n")
            connection.writeUntilStalled(batch)
            silent.append(connection)
        }
        silent.removeAll()
        // Clients gone after half a request, and gone before their reply.
        state.part = .vanishing
        try LineConnection(path: socket).write(#"{"method": "send", "params": {"te"#)
        try LineConnection(path: socket).write(#"{"method": "status"}"# + "\n")
    }

    /// Raises this process's descriptor limit to at least `count` (within the hard limit), for 1000 clients.
    private static func allowDescriptors(_ count: rlim_t) throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        guard limit.rlim_cur < count else { return }
        guard limit.rlim_max >= count else {
            throw HarnessError("the hard descriptor limit \(limit.rlim_max) is below \(count)")
        }
        limit.rlim_cur = count
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

/// The parts of a storm, in order.
private enum StormPart: Int, CaseIterable, CustomStringConvertible {
    case none, longLine, notUTF8OrTooDeep, crowd, silentSubscribers, vanishing

    var description: String {
        switch self {
        case .none: "none"
        case .longLine: "10MB-line"
        case .notUTF8OrTooDeep: "not-utf8-or-too-deep"
        case .crowd: "1000-connections"
        case .silentSubscribers: "silent-subscribers"
        case .vanishing: "vanishing-clients"
        }
    }
}

/// What the storm thread shares with the timing loop: the stop flag, the part of a storm under way, the kiosk's
/// RSS after each storm, the first failure.
private final class StormState: Sendable {
    private let stopFlag = Atomic<Bool>(false)
    private let currentPart = Atomic<Int>(0)
    private let resident = Mutex<[Double]>([])
    private let firstFailure = Mutex<String?>(nil)

    var stopped: Bool { stopFlag.load(ordering: .relaxed) }
    func stop() { stopFlag.store(true, ordering: .relaxed) }
    var part: StormPart {
        get { StormPart(rawValue: currentPart.load(ordering: .relaxed)) ?? .none }
        set { currentPart.store(newValue.rawValue, ordering: .relaxed) }
    }
    func completed(residentMiB: Double) { resident.withLock { $0.append(residentMiB) } }
    var residentAfterEach: [Double] { resident.withLock { $0 } }
    var count: Int { resident.withLock { $0.count } }
    func failed(_ reason: String) { firstFailure.withLock { $0 = $0 ?? reason } }
    var failure: String? { firstFailure.withLock { $0 } }
}
