import ArgumentParser
import Benchmarks

/// `multiscreen bench bad-input` (reliability row R11): do storms of bad input on the control socket slow the
/// screens?
struct BenchBadInput: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bad-input",
        abstract:
            "Frames of local messages and local status replies, alone and while storms of bad input hit the control "
            + "socket (10 MB lines, invalid UTF-8, deep JSON, 1000 connections, silent and vanishing clients).")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Seconds in all: the first half alone, the second under storms.")
    var seconds = 120.0
    @Option(
        help: ArgumentHelp(
            "Run the compositor and the kiosk on CPU K and this benchmark with its load on CPU L, as if the load came from other machines (docs/benchmarks.md).",
            valueName: "K,L"))
    var cpus: CPUSplit?

    func run() throws {
        printResults(try options.benchmarks(cpus: cpus).badInput(seconds: seconds), json: options.json)
    }
}
