import ArgumentParser
import Foundation
import FrameTiming
import LatencyReport
import Logging
import Messaging
import Outputs

/// `multiscreen latency`: message → shown latency per output, measured through the real path (control socket →
/// ring → display thread → frame → `wp_presentation`), written as `latency.json` and one SVG per output.
struct LatencyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latency",
        abstract: "Measure message → presented latency on every output; write DIR/latency.json and an SVG per output.",
        discussion: """
            Sends --messages messages, one at a time at a random phase of the refresh cycle, through the control \
            socket of a running Multiscreen (or, with --embedded, of one it starts on a private headless \
            compositor), and follows each to the frame that first shows it on every output from the `frame.shown` \
            events: the wp_presentation `presented` time, converted from the compositor's clock to \
            CLOCK_MONOTONIC; where a compositor never sends `presented` (sway 1.7 headless) the frame callback's \
            arrival, labelled `frameDone`. The keys of latency.json are documented in docs/latency.md.

            Exit status: 0 when every message was accounted for on every output (presented, shown by the \
            frame-done fallback, or counted lost); 1 when some were not, or Multiscreen could not be reached or \
            started; 64 for a usage error.
            """)

    @OptionGroup var logging: LoggingOptions

    @Option(help: ArgumentHelp("Start a private headless compositor: weston or sway.", valueName: "compositor"))
    var embedded: String?

    @Option(help: "Outputs of the embedded compositor (weston: 1).")
    var outputs = 1

    @Option(help: "Messages to send.")
    var messages = 1000

    @Option(help: ArgumentHelp("Directory for latency.json and the SVG plots (created if missing).", valueName: "dir"))
    var out = "multiscreen-latency"

    @Option(
        help: ArgumentHelp(
            "Frame pacing of the embedded Multiscreen: frame, immediate or deadline (run --pacing); for a running one, the pacing it was started with, to label the report.",
            valueName: "mode"))
    var pacing = "frame"

    @Flag(help: "Also run weston-presentation-shm (-p, then -f) in the same session and compare commit → present.")
    var reference = false

    @Flag(
        help:
            "Photodiode mode: the embedded Multiscreen runs with --flash (a running one must have been started with it); samples record the patch colour and the presented time of each toggle."
    )
    var flash = false
    @Option(help: "Side of the flash patch in logical pixels (--embedded).")
    var flashSize = 64
    @Option(help: "Corner of the flash patch (--embedded): top-left, top-right, bottom-left or bottom-right.")
    var flashCorner = "top-left"

    @Flag(
        help:
            "Send each message a random time in [0, refresh period) after the previous one without waiting for it to be shown, so some arrive while a frame is in flight (where pacing modes differ)."
    )
    var backToBack = false

    @Option(help: ControlOptions.socketHelp)
    var socket: String?

    @Option(help: "Size of each embedded output.")
    var width = 640
    @Option(help: "Size of each embedded output.")
    var height = 360

    @Option(help: ArgumentHelp("Seconds a message may take to be accounted for on every output.", valueName: "seconds"))
    var messageTimeout = 2.0

    func validate() throws {
        if let embedded, embedded != "weston" && embedded != "sway" {
            throw ValidationError("--embedded takes weston or sway")
        }
        if embedded == "weston" && outputs != 1 { throw ValidationError("weston's headless backend has one output") }
        guard (1...16).contains(outputs) else { throw ValidationError("--outputs must be between 1 and 16") }
        guard (1...1_000_000).contains(messages) else { throw ValidationError("--messages must be 1…1000000") }
        guard FramePacing(rawValue: pacing) != nil || pacing == "all" else {
            throw ValidationError("--pacing takes frame, immediate, deadline or all")
        }
        if pacing == "all" && embedded == nil {
            throw ValidationError("--pacing all starts Multiscreen once per mode: it needs --embedded")
        }
        guard FlashPatch.Corner(rawValue: flashCorner) != nil else {
            throw ValidationError("--flash-corner takes top-left, top-right, bottom-left or bottom-right")
        }
        guard messageTimeout > 0 && messageTimeout <= 60 else {
            throw ValidationError("--message-timeout takes 0 < seconds ≤ 60")
        }
    }

    func run() throws {
        logging.bootstrap()
        let logger = Logger(label: "multiscreen.latency")
        guard pacing == "all" else {
            let run = try measure(pacing: pacing, withReference: reference, logger: logger)
            try write(run, svgPrefix: "latency-")
            try writeJSON(run.json)
            print(run.summary)
            guard run.everyMessageAccountedFor else {
                printError("error: some messages were not accounted for (see messages.unaccounted in latency.json)")
                throw ExitCode(1)
            }
            return
        }
        // One embedded session per mode, so each starts alike; the reference client runs with the first.
        var runs: [LatencyRun] = []
        for (index, mode) in FramePacing.allCases.enumerated() {
            logger.info("pacing \(mode.rawValue)")
            let run = try measure(pacing: mode.rawValue, withReference: reference && index == 0, logger: logger)
            try write(run, svgPrefix: "latency-\(mode.rawValue)-")
            runs.append(run)
        }
        let comparison = LatencyComparison(runs: runs)
        try writeJSON(comparison.json)
        for run in runs { print(run.summary) }
        print(comparison.summary)
        guard comparison.everyMessageAccountedFor else {
            printError("error: some messages were not accounted for (see runs[].outputs[].messages.unaccounted)")
            throw ExitCode(1)
        }
    }

    /// One SVG per output, `DIR/<prefix><output>.svg`.
    private func write(_ run: LatencyRun, svgPrefix: String) throws {
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        for output in run.outputs {
            let svg = (out as NSString).appendingPathComponent("\(svgPrefix)\(Self.fileSafe(output.name)).svg")
            try Data(LatencyPlot.svg(output).utf8).write(to: URL(fileURLWithPath: svg))
            print(svg)
        }
    }

    private func writeJSON(_ document: JSONValue) throws {
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let json = (out as NSString).appendingPathComponent("latency.json")
        try Data((document.serialized + "\n").utf8).write(to: URL(fileURLWithPath: json))
        print(json)
    }

    static func fileSafe(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
    }

    func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
