import ArgumentParser
import Benchmarks

/// `multiscreen bench remote-idle`, `remote-latency` and `remote-load` (issue 8).
struct BenchRemoteIdle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote-idle", abstract: "Idle wakeups per second with the phone remote on, off, and of sleep.")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Seconds each process is watched.")
    var seconds = 10.0

    func run() throws {
        printResults(try options.benchmarks().remoteIdle(seconds: seconds), json: options.json)
    }
}

struct BenchRemoteLatency: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote-latency",
        abstract: "Phone WebSocket message → committed on both external screens, next to the local socket (same run).")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Messages from the phone (each also sent once through the local socket).")
    var messages = 200

    func run() throws {
        printResults(try options.benchmarks().remoteLatency(messages: messages), json: options.json)
    }
}

struct BenchRemoteLoad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote-load",
        abstract:
            "Many phones at once plus 50 local status requests/s: refusals, controllers seen, local p99, frames "
            + "with and without the load, RSS and fds after each of two rounds.")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Phones (WebSocket clients) at once.")
    var clients = 200
    @Option(help: "Seconds of load, in two rounds, after half as long with local requests alone.")
    var seconds = 120.0
    @Option(
        help: ArgumentHelp(
            "Run the compositor and the kiosk on CPU K and this benchmark with its load on CPU L, as if the load came from other machines (docs/benchmarks.md).",
            valueName: "K,L"))
    var cpus: CPUSplit?

    func run() throws {
        printResults(
            try options.benchmarks(cpus: cpus).remoteLoad(clients: clients, seconds: seconds), json: options.json)
    }
}
