import ArgumentParser
import Benchmarks
import Foundation
import Logging

/// `multiscreen bench …`: benchmarks with machine-readable results (docs/benchmarks.md has the commands and
/// the numbers). Build in release first: `swift build -c release`.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract:
            "Benchmarks, each with its baseline in the same run: start-up, hotplug, idle, memory, messages, mirrors, "
            + "identical screens, keys, the ring, the fleet, web pages, the phone remote, bad input, a soak, media, playlists.",
        subcommands: [
            BenchStartup.self, BenchHotplug.self, BenchIdle.self, BenchMemory.self, BenchMessages.self,
            BenchMirror.self, BenchIdentical.self, BenchKeypress.self, BenchRingCommand.self, BenchFleetLatency.self,
            BenchFleetLoad.self,
            BenchFleetKiosks.self, BenchWeb.self, BenchRemoteIdle.self, BenchRemoteLatency.self, BenchRemoteLoad.self,
            BenchBadInput.self, BenchSoak.self, BenchMedia.self, BenchPlaylist.self,
        ])
}

/// Options every display benchmark shares.
struct DisplayBenchOptions: ParsableArguments {
    @OptionGroup var logging: LoggingOptions
    @Flag(help: "Print a JSON array instead of one line per result.")
    var json = false
    @Option(help: "Output width in pixels.")
    var width = 1280
    @Option(help: "Output height in pixels.")
    var height = 720

    func benchmarks(cpus: CPUSplit? = nil) -> DisplayBenchmarks {
        logging.bootstrap()
        return DisplayBenchmarks(binary: "/proc/self/exe".resolvingSymlinks, width: width, height: height, cpus: cpus)
    }
}

/// `--cpus K,L` of the benchmarks whose load stands for other machines: the compositor and the kiosk on CPU K, the
/// benchmark and its load on CPU L.
extension CPUSplit: ExpressibleByArgument {
    public init?(argument: String) {
        let numbers = argument.split(separator: ",").map { Int($0) }
        guard numbers.count == 2, let kiosk = numbers[0], let load = numbers[1], kiosk != load,
            [kiosk, load].allSatisfy({ (0..<1024).contains($0) })
        else { return nil }
        self.init(kiosk: kiosk, load: load)
    }
}

struct BenchStartup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "startup",
        abstract: "Exec → first buffer on every output (1, 2, 4 outputs) vs weston-simple-egl on one output.")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Runs per subject (interleaved).")
    var runs = 7

    func run() throws {
        printResults(try options.benchmarks().startup(outputCounts: [1, 2, 4], runs: runs), json: options.json)
    }
}

struct BenchHotplug: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hotplug",
        abstract: "wl_output.done of a new output → its first committed buffer, over add/remove cycles.")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Add/remove cycles (plus one warm-up).")
    var cycles = 50

    func run() throws {
        printResults(try options.benchmarks().hotplug(cycles: cycles), json: options.json)
    }
}

struct BenchSoak: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Two outputs, a message a second, a hotplug a minute: RSS, fds and message → shown over time.")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Length of the run (60: an hour; 1440: a day).")
    var minutes = 60
    @Option(help: "Minutes left out of the RSS growth (caches filling up).")
    var warmUp = 10
    @Option(help: "Seconds between messages (R6: 1; shorter to find a slow growth sooner).")
    var messageInterval = 1.0
    @Option(help: "Seconds between hotplugs (R6: 60; at least the message interval).")
    var hotplugInterval = 60.0

    func validate() throws {
        guard minutes >= 2 else { throw ValidationError("--minutes must be at least 2") }
        guard messageInterval >= 0.01, hotplugInterval >= messageInterval else {
            throw ValidationError("--message-interval must be at least 0.01 s and --hotplug-interval at least that")
        }
    }

    func run() throws {
        let results = try options.benchmarks().soak(
            minutes: minutes, warmUpMinutes: warmUp, messageInterval: messageInterval,
            hotplugInterval: hotplugInterval)
        printResults(results, json: options.json)
        let failures = DisplayBenchmarks.soakFailures(results)
        guard failures.isEmpty else {
            for failure in failures { FileHandle.standardError.write(Data("soak: \(failure)\n".utf8)) }
            throw ExitCode.failure
        }
    }
}

struct BenchIdle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle", abstract: "Wakeups per second of an idle Multiscreen (and of `sleep`, the control).")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Seconds to observe.")
    var seconds = 10.0

    func run() throws {
        printResults(try options.benchmarks().idle(seconds: seconds), json: options.json)
    }
}

struct BenchMemory: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory", abstract: "RSS per added output against that output's buffer size.")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Outputs to add.")
    var outputs = 3

    func run() throws {
        printResults(try options.benchmarks().memory(addedOutputs: outputs), json: options.json)
    }
}

struct BenchMessages: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages",
        abstract: "Socket message → pixels committed on every external screen (Multiscreen's own enqueue/drain log).")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Messages sent through the control socket.")
    var messages = 40

    func run() throws {
        printResults(try options.benchmarks().messageLatency(socketMessages: messages), json: options.json)
    }
}

struct BenchKeypress: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keypress",
        abstract: "Return injected by wtype → buffer committed on every external screen, from both processes' traces.")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Messages typed with wtype and sent with Return.")
    var keypresses = 20

    func run() throws {
        printResults(try options.benchmarks().keypressLatency(keypresses: keypresses), json: options.json)
    }
}

struct BenchMirror: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mirror", abstract: "Render cost of the controller with two mirrors against the controller alone.")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Controller updates per scenario.")
    var updates = 30

    func run() throws {
        printResults(try options.benchmarks().mirrorCost(updates: updates), json: options.json)
    }
}

struct BenchIdentical: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identical",
        abstract: "A message to every external screen of a wall (identical screens share one frame) against 2 outputs.")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Outputs of the wall (the first is the controller).")
    var outputs = 16
    @Option(help: "Messages per scenario (interleaved).")
    var updates = 30

    func run() throws {
        printResults(
            try options.benchmarks().identicalScreens(outputs: outputs, updates: updates), json: options.json)
    }
}

struct BenchWeb: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Page → page message latency next to the native text path; cost per web screen; open/close cycles.")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Messages the controller page sends.")
    var messages = 100
    @Option(help: "Open/close cycles of a view after the latency run (0: none).")
    var cycles = 20
    @Option(help: "Seconds of each idle window (no page, then a loaded static page; 0: none).")
    var idleSeconds = 20.0

    func run() throws {
        printResults(
            try options.benchmarks().web(messages: messages, cycles: cycles, idleSeconds: idleSeconds),
            json: options.json)
    }
}

struct BenchMedia: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media",
        abstract:
            "Video on external screens: CPU against gst-launch-1.0 … ! waylandsink, 3 screens against 1, dropped "
            + "frames, controller latency while 3 play, RSS per added screen; each against its target.")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Seconds two videos play for the dropped frames (issue 25: 60); the CPU windows are at most 7 s.")
    var seconds = 60.0
    @Option(help: "Rounds of each alternated pair (Multiscreen and the reference; 3 screens and 1; playing and not).")
    var rounds = 3
    @Option(help: "Controller messages per phase and round of the latency case.")
    var messages = 100

    func validate() throws {
        guard seconds >= 2 else { throw ValidationError("--seconds must be at least 2") }
        guard rounds >= 2 else { throw ValidationError("--rounds must be at least 2 (the pairs alternate)") }
        guard messages >= 10 else { throw ValidationError("--messages must be at least 10") }
    }

    func run() throws {
        try options.benchmarks().media(seconds: seconds, rounds: rounds, messages: messages).print(json: options.json)
    }
}

struct BenchPlaylist: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "playlist",
        abstract:
            "Playlists: switch skew between one kiosk's 3 screens and between two kiosks with one clock (from the "
            + "proof of play), idle wakeups with 10 s pictures against none, capture times, and the controller's "
            + "latency while a 200 MB asset downloads against none; each against its target.")
    @OptionGroup var options: DisplayBenchOptions
    @Option(help: "Switches of 1 s items observed (issue 26: 100).")
    var switches = 100
    @Option(help: "Seconds of each idle window.")
    var idleSeconds = 60.0
    @Option(help: "Rounds of controller messages with and without a 200 MB asset downloading, alternated.")
    var downloadRounds = 3

    func validate() throws {
        guard switches >= 5 else { throw ValidationError("--switches must be at least 5") }
        guard idleSeconds >= 10 else { throw ValidationError("--idle-seconds must be at least 10") }
        guard downloadRounds >= 1 else { throw ValidationError("--download-rounds must be at least 1") }
    }

    func run() throws {
        try options.benchmarks().playlist(switches: switches, idleSeconds: idleSeconds, downloadRounds: downloadRounds)
            .print(json: options.json)
    }
}
