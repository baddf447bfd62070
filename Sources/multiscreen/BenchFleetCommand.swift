import ArgumentParser
import Benchmarks
import Fleet
import Foundation

/// `multiscreen bench fleet-latency` and `fleet-load` (issue 12), and the simulated kiosks `fleet-load` runs.
struct BenchFleetLatency: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet-latency",
        abstract: "Broker publish → committed on each of 3 kiosks, next to the local socket path (same run).")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Commands published to all kiosks (each also sent once through a local socket).")
    var commands = 200

    func run() throws {
        printResults(try options.benchmarks().fleetLatency(commands: commands), json: options.json)
    }
}

struct BenchFleetLoad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet-load",
        abstract: "Simulated kiosks × commands per second through one mosquitto: loss, reply p99, CPU.")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Simulated kiosks (fleet links without screens, in one child process).")
    var kiosks = 10
    @Option(help: "Commands per second to each kiosk.")
    var rate = 100
    @Option(help: "Seconds of load.")
    var seconds = 120.0

    func run() throws {
        printResults(
            try options.benchmarks().fleetLoad(kiosks: kiosks, rate: rate, seconds: seconds), json: options.json)
    }
}

/// The kiosks of `fleet-load`: runs until SIGTERM, then prints what it applied.
struct BenchFleetKiosks: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet-kiosks", abstract: "Simulated kiosks for fleet-load (internal).", shouldDisplay: false)
    @OptionGroup var logging: LoggingOptions
    @Option var broker: String
    @Option var site: String
    @Option var count: Int

    func run() throws {
        logging.bootstrap()
        // Blocked before any thread starts, so every thread inherits the mask and sigwait below gets them.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let kiosks = try SimulatedKiosks(broker: try BrokerAddress(broker), site: site, count: count)
        let deadline = Date().addingTimeInterval(20)
        while !kiosks.connected && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard kiosks.connected else { throw ValidationError("the simulated kiosks could not connect") }
        print("simulated kiosks connected: \(count)")
        fflush(nil)
        var received: Int32 = 0
        sigwait(&signals, &received)
        kiosks.stop()
        print("applied \(kiosks.appliedCount), duplicates \(kiosks.duplicates)")
    }
}
