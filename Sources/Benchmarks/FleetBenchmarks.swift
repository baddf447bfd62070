import CompositorHarness
import Fleet
import Foundation
import Logging
import Messaging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The benchmarks of issue 12: a command through the broker against the local socket, and a fleet under load.
extension DisplayBenchmarks {
    /// `latency: message #7 on HEADLESS-2 committed at 123456789 ns, …`: the commit's `CLOCK_MONOTONIC` time.
    static func commitTime(in log: String, id: Int, screen: String) -> UInt64? {
        guard let range = log.range(of: "latency: message #\(id) on \(screen) committed at ", options: .backwards)
        else { return nil }
        return UInt64(log[range.upperBound...].prefix { $0.isNumber })
    }

    func waitForCommit(_ instance: Instance, id: Int, screen: String = "HEADLESS-2") throws -> UInt64 {
        var found: UInt64?
        try waitUntil(timeout: 10, "message #\(id) committed on \(screen)") {
            found = Self.commitTime(in: instance.app.output, id: id, screen: screen)
            return found != nil
        }
        return found!
    }

    /// Broker publish → the message committed on the external screen of each of 3 kiosks (each on its own headless
    /// sway), interleaved with a publish to one kiosk and the local socket path (request written → committed) to
    /// the same kiosk. Both clocks are `CLOCK_MONOTONIC`, shared by every process on the machine.
    public func fleetLatency(commands: Int) throws -> [BenchmarkResult] {
        let broker = try MosquittoBroker()
        let site = "bench"
        let names = ["kiosk-1", "kiosk-2", "kiosk-3"]
        var instances: [Instance] = []
        defer { for instance in instances { instance.stop() } }
        for name in names {
            let config = "[fleet]\nbroker = \"\(broker.url)\"\nsite = \"\(site)\"\nkiosk = \"\(name)\"\n"
            let instance = try Instance(binary: binary, outputs: 2, width: width, height: height, config: config)
            instances.append(instance)
            _ = try instance.app.waitForLine(containing: "fleet link connected", timeout: 10)
        }
        let client = try FleetOperator(settings: FleetConfig(broker: try BrokerAddress(broker.url), site: site))
        try client.connect()
        try client.subscribe(["multiscreen/\(site)/+/reply"])
        var fleet: [Double] = []
        var fleetOne: [Double] = []
        var socket: [Double] = []
        for index in 0..<commands {
            let id = "bench-\(index)"
            let published = MonotonicClock.nanoseconds()
            try client.publish(
                topic: FleetTopics.command(site: site, target: FleetTopics.all),
                payload: FleetOperator.request(.send(text: "fleet \(index)", screen: nil), id: id))
            var messageIDs: [String: Int] = [:]
            let deadline = FleetOperator.now() + 10
            while messageIDs.count < names.count && FleetOperator.now() < deadline {
                try client.step(until: min(deadline, FleetOperator.now() + 0.01))
                for message in client.takeMessages() {
                    guard let kiosk = FleetTopics.kiosk(in: message.topic, site: site, leaf: "reply"),
                        let reply = try? JSONValue.parse(message.payload).objectValue,
                        reply["id"] == .string(id), case .integer(let messageID)? = reply["result"]?.objectValue["id"]
                    else { continue }
                    messageIDs[kiosk] = messageID
                }
            }
            guard messageIDs.count == names.count else {
                throw HarnessError("only \(messageIDs.keys.sorted()) replied to \(id)")
            }
            for (position, name) in names.enumerated() {
                let committed = try waitForCommit(instances[position], id: messageIDs[name]!)
                fleet.append(Double(committed - published) / 1e6)
            }
            Thread.sleep(forTimeInterval: 0.02)
            // The same kiosk through both paths, one kiosk busy at a time: the transport's own cost.
            let position = index % instances.count
            let target = instances[position]
            let single = "bench-one-\(index)"
            let singlePublished = MonotonicClock.nanoseconds()
            try client.publish(
                topic: FleetTopics.command(site: site, target: names[position]),
                payload: FleetOperator.request(.send(text: "one \(index)", screen: nil), id: single))
            var singleID: Int?
            let singleDeadline = FleetOperator.now() + 10
            while singleID == nil && FleetOperator.now() < singleDeadline {
                try client.step(until: min(singleDeadline, FleetOperator.now() + 0.01))
                for message in client.takeMessages() {
                    guard let reply = try? JSONValue.parse(message.payload).objectValue,
                        reply["id"] == .string(single),
                        case .integer(let messageID)? = reply["result"]?.objectValue["id"]
                    else { continue }
                    singleID = messageID
                }
            }
            guard let singleID else { throw HarnessError("no reply to \(single)") }
            fleetOne.append(Double(try waitForCommit(target, id: singleID) - singlePublished) / 1e6)
            Thread.sleep(forTimeInterval: 0.02)
            let written = MonotonicClock.nanoseconds()
            let messageID = try target.send("socket \(index)")
            socket.append(Double(try waitForCommit(target, id: messageID) - written) / 1e6)
            Thread.sleep(forTimeInterval: 0.02)
            if (index + 1) % 50 == 0 {
                Logger(label: "multiscreen.bench").info("fleet latency: \(index + 1)/\(commands)")
            }
        }
        client.disconnect()
        var results: [BenchmarkResult] = []
        let subjects = [
            ("broker-publish-to-commit-all-3-kiosks", fleet), ("broker-publish-to-commit-one-kiosk", fleetOne),
            ("local-socket-to-commit-one-kiosk", socket),
        ]
        for (subject, values) in subjects {
            for (metric, p) in [("p50", 50.0), ("p99", 99.0)] {
                results.append(
                    BenchmarkResult(
                        benchmark: "fleet-latency", subject: subject, metric: metric,
                        value: SampleStatistics.percentile(values, p), unit: "ms", samples: values.count))
            }
        }
        return results
    }

    /// `kiosks` simulated kiosks (fleet links with a stand-in display thread, in one child process) each receiving
    /// `rate` commands per second for `seconds`, through one mosquitto: loss, duplicates, reply latency, and the CPU
    /// of the broker and of the kiosks.
    public func fleetLoad(kiosks: Int, rate: Int, seconds: Double) throws -> [BenchmarkResult] {
        let broker = try MosquittoBroker()
        let site = "load"
        let simulator = try ChildProcess(
            binary,
            [
                "bench", "fleet-kiosks", "--broker", broker.url, "--site", site, "--count", "\(kiosks)",
                "--log-level", "warning",
            ])
        defer { simulator.kill() }
        _ = try simulator.waitForLine(containing: "simulated kiosks connected", timeout: 20)
        let client = try FleetOperator(settings: FleetConfig(broker: try BrokerAddress(broker.url), site: site))
        try client.connect()
        try client.subscribe(["multiscreen/\(site)/+/reply"])
        guard let brokerPID = broker.process?.pid else { throw HarnessError("the broker is not running") }
        let brokerBefore = Self.cpuSeconds(pid: brokerPID)
        let kioskBefore = Self.cpuSeconds(pid: simulator.pid)
        var sentAt: [String: UInt64] = [:]
        sentAt.reserveCapacity(Int(Double(kiosks * rate) * seconds))
        var latencies: [Double] = []
        var replied: Set<String> = []
        var duplicateReplies = 0
        var errors = 0
        func collect() {
            for message in client.takeMessages() {
                guard let reply = try? JSONValue.parse(message.payload).objectValue,
                    case .string(let id)? = reply["id"]
                else { continue }
                if reply["error"] != nil { errors += 1 }
                if !replied.insert(id).inserted {
                    duplicateReplies += 1
                    continue
                }
                if let sent = sentAt[id] { latencies.append(Double(message.receivedAt - sent) / 1e6) }
            }
        }
        let start = FleetOperator.now()
        let interval = 1.0 / Double(rate)
        var round = 0
        while FleetOperator.now() - start < seconds {
            // One command for each kiosk per round, `rate` rounds a second, on schedule (no coordinated omission:
            // a late round is sent at once, not skipped).
            let due = start + Double(round) * interval
            try client.step(until: due)
            collect()
            for kiosk in 0..<kiosks {
                let id = "\(kiosk)-\(round)"
                sentAt[id] = MonotonicClock.nanoseconds()
                try client.publishLater(
                    topic: FleetTopics.command(site: site, target: "sim-\(kiosk)"),
                    payload: FleetOperator.request(.send(text: "load \(round)", screen: nil), id: id))
            }
            round += 1
            if round % (rate * 10) == 0 {
                Logger(label: "multiscreen.bench").info("fleet load: \(round / rate) s, \(replied.count) replies")
            }
        }
        let sent = round * kiosks
        let drainDeadline = FleetOperator.now() + 20
        while replied.count < sent && FleetOperator.now() < drainDeadline {
            try client.step(until: FleetOperator.now() + 0.05)
            collect()
        }
        let elapsed = FleetOperator.now() - start
        let brokerCPU = Self.cpuSeconds(pid: brokerPID) - brokerBefore
        let kioskCPU = Self.cpuSeconds(pid: simulator.pid) - kioskBefore
        client.disconnect()
        let subject = "\(kiosks)-kiosks-x-\(rate)-per-s"
        return [
            BenchmarkResult(
                benchmark: "fleet-load", subject: subject, metric: "commands-sent", value: Double(sent), unit: "",
                samples: sent),
            BenchmarkResult(
                benchmark: "fleet-load", subject: subject, metric: "commands-lost", value: Double(sent - replied.count),
                unit: "", samples: sent),
            BenchmarkResult(
                benchmark: "fleet-load", subject: subject, metric: "duplicate-replies", value: Double(duplicateReplies),
                unit: "", samples: sent),
            BenchmarkResult(
                benchmark: "fleet-load", subject: subject, metric: "error-replies", value: Double(errors), unit: "",
                samples: sent),
            BenchmarkResult(
                benchmark: "fleet-load", subject: subject, metric: "reply-p50",
                value: SampleStatistics.percentile(latencies, 50), unit: "ms", samples: latencies.count),
            BenchmarkResult(
                benchmark: "fleet-load", subject: subject, metric: "reply-p99",
                value: SampleStatistics.percentile(latencies, 99), unit: "ms", samples: latencies.count),
            BenchmarkResult(
                benchmark: "fleet-load", subject: "mosquitto", metric: "cpu", value: 100 * brokerCPU / elapsed,
                unit: "% of a core", samples: 1),
            BenchmarkResult(
                benchmark: "fleet-load", subject: "all-\(kiosks)-kiosks", metric: "cpu",
                value: 100 * kioskCPU / elapsed, unit: "% of a core", samples: 1),
            BenchmarkResult(
                benchmark: "fleet-load", subject: "one-kiosk", metric: "cpu",
                value: 100 * kioskCPU / elapsed / Double(kiosks), unit: "% of a core", samples: 1),
        ]
    }

    /// User + system CPU seconds of a process so far (`/proc/<pid>/stat`, fields 14 and 15).
    static func cpuSeconds(pid: pid_t) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return .nan }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, so utime (14) and stime (15) are at offsets 11 and 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// Fleet links without screens, for the load benchmark: each a ``FleetLink`` on its own bus, answered by a
/// stand-in display thread that applies nothing but answers as the product does (`send` → its id and a
/// `message.received` event; `status` → a small document).
public final class SimulatedKiosks: @unchecked Sendable {
    private let links: [FleetLink]
    private let stopping = Atomic<Bool>(false)
    private let applied = Atomic<Int>(0)
    private var threads: [Thread] = []
    private let finished = DispatchSemaphore(value: 0)

    public init(broker: BrokerAddress, site: String, count: Int) throws {
        var links: [FleetLink] = []
        var buses: [MessageBus] = []
        for index in 0..<count {
            let bus = try MessageBus()
            buses.append(bus)
            var options = FleetLink.Options()
            options.version = "simulated"
            links.append(
                try FleetLink(
                    config: FleetConfig(broker: broker, site: site, kiosk: "sim-\(index)"), bus: bus,
                    options: options))
        }
        self.links = links
        for bus in buses {
            nonisolated(unsafe) let consumer = bus.makeConsumer()
            let thread = Thread { [self] in
                var next: UInt64 = 1
                while !stopping.load(ordering: .relaxed) {
                    consumer.waitForMessages(timeoutMilliseconds: 50)
                    consumer.drain { received in
                        let reply: Reply
                        switch received.message {
                        case .send(let text, let screen, _):
                            reply = .sent(id: next, screen: screen)
                            consumer.publish(.messageReceived(id: next, text: text, screen: screen))
                            next += 1
                            applied.add(1, ordering: .relaxed)
                        case .status:
                            reply = .result(method: .status, result: ["screens": .array([])])
                        default:
                            reply = .error(MessageError(.invalidRequest, "not simulated"))
                        }
                        received.replyTo?.deliver(reply)
                    }
                }
                finished.signal()
            }
            threads.append(thread)
            thread.start()
        }
    }

    public var connected: Bool { links.allSatisfy { $0.counters["connected"] == 1 } }
    public var appliedCount: Int { applied.load(ordering: .relaxed) }
    public var duplicates: Int { links.reduce(0) { $0 + ($1.counters["duplicates"] ?? 0) } }

    public func stop() {
        for link in links { link.stop() }
        stopping.store(true, ordering: .relaxed)
        for _ in threads { finished.wait() }
    }
}
