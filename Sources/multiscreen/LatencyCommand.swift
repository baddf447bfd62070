import ArgumentParser
import CompositorHarness
import Foundation
import LatencyReport
import Logging
import Messaging
import Outputs
import Remote

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

    /// One run: starts the embedded session if asked, measures, stops it. - Throws: `ExitCode(1)` when
    /// Multiscreen cannot be started or reached.
    private func measure(pacing: String, withReference reference: Bool, logger: Logger) throws -> LatencyRun {
        var session: EmbeddedSession?
        defer { session?.stop() }
        let path: String
        do {
            if let embedded {
                let flashArguments =
                    flash ? ["--flash", "--flash-size", "\(flashSize)", "--flash-corner", flashCorner] : []
                session = try EmbeddedSession(
                    compositor: embedded, outputs: outputs, width: width, height: height,
                    logLevel: logging.logLevel, runArguments: ["--pacing", pacing] + flashArguments, logger: logger)
                path = session!.socket
            } else {
                path = try socket ?? ControlSocket.defaultPath(environment: ProcessInfo.processInfo.environment)
            }
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
        let client = ControlClient(path: path)
        var before: [String: JSONValue] = [:]
        do {
            // Until every screen has had a frame presented (1 s at most: sway 1.7 headless never presents), so that
            // a screen's first message is not measured before it is known whether its compositor sends `presented`
            // (until then the frame callback answers, labelled `frameDone`).
            let deadline = Date(timeIntervalSinceNow: 1)
            repeat {
                before = try status(client)
                let screens = before["screens"].map(Self.screens) ?? []
                if !screens.isEmpty && screens.allSatisfy({ $0.presented > 0 }) { break }
                usleep(20_000)  // polling the status, bounded by the deadline
            } while Date() < deadline
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
        let screens = before["screens"].map(Self.screens) ?? []
        // What the running Multiscreen does, from its status (one before issue 9 says nothing: trust --pacing).
        var measuredPacing = pacing
        if case .string(let running)? = before["pacing"] { measuredPacing = running }
        var runningFlash = flash
        if case .bool(let on)? = before["flash"] { runningFlash = on }
        // A blank screen shows no message; every other kind does (the controller in its log).
        let watched = screens.filter { $0.content != "blank" }
        guard !watched.isEmpty else {
            printError("error: no screen shows messages (every screen is blank, or there are no outputs)")
            throw ExitCode(1)
        }
        let collector = EventCollector()
        let stream = Thread {
            _ = try? client.events(subscribed: { collector.subscribed() }) { line in
                if let event = try? MessageCodec.decodeEvent(line) { collector.add(event) }
                return !collector.isFinished
            }
            collector.streamEnded()
        }
        stream.start()
        guard collector.waitForSubscription(timeout: 5) else {
            printError("error: \(path) did not confirm the event subscription")
            throw ExitCode(1)
        }

        var references: [ReferenceRun] = []
        var referenceNote: String?
        if reference {
            do {
                let environment = session?.compositor.environment ?? [:]
                references = try ["-p", "-f"].map { try Self.runReference(mode: $0, environment: environment) }
            } catch {
                referenceNote = "reference client not measured: \(error)"
                logger.warning("\(referenceNote!)")
            }
        }

        let period = watched.map(\.refreshNanoseconds).filter { $0 > 0 }.max() ?? 16_666_667
        let names = watched.map(\.name)
        let progress = isatty(STDERR_FILENO) != 0
        var sent: [UInt64] = []
        for index in 1...messages {
            // A random phase of the refresh cycle: the message lands anywhere between two vblanks.
            usleep(UInt32(UInt64.random(in: 0..<period) / 1000))
            let reply: Reply
            do {
                reply = try client.request(.send(text: "latency \(index)/\(messages)", screen: nil))
            } catch {
                printError("\nerror: \(error)")
                throw ExitCode(1)
            }
            guard case .result(_, let result) = reply, case .integer(let id)? = result["id"] else {
                printError("\nerror: send refused: \(reply)")
                throw ExitCode(1)
            }
            sent.append(UInt64(id))
            if !backToBack && !collector.waitUntilAccounted(UInt64(id), on: names, timeout: messageTimeout) {
                logger.warning("message #\(id) not accounted for on every output within \(messageTimeout) s")
            }
            if progress && (index % 10 == 0 || index == messages) {
                FileHandle.standardError.write(Data("\rlatency: \(index)/\(messages) messages".utf8))
            }
        }
        if progress { FileHandle.standardError.write(Data("\n".utf8)) }
        if backToBack, let last = sent.last, !collector.waitUntilAccounted(last, on: names, timeout: messageTimeout) {
            logger.warning("the last message was not accounted for on every output within \(messageTimeout) s")
        }
        collector.finish()
        let after = (try? status(client)) ?? [:]
        let afterScreens = after["screens"].map(Self.screens) ?? []

        var run = LatencyRun(
            compositor: embedded ?? "session",
            sent: sent,
            outputs: watched.map { screen in
                let end = afterScreens.first { $0.name == screen.name }
                let frames = end.map {
                    FrameCounts(
                        committed: $0.committed - screen.committed, presented: $0.presented - screen.presented,
                        discarded: $0.discarded - screen.discarded,
                        missedVblanks: $0.missedVblanks - screen.missedVblanks)
                }
                return OutputReport(
                    name: screen.name, modeRefreshNanoseconds: screen.refreshNanoseconds, expected: sent,
                    shown: collector.shown(on: screen.name), frames: frames)
            })
        run.pacing = measuredPacing
        if measuredPacing != pacing {
            run.notes.append(
                "--pacing \(pacing) asked for, but Multiscreen runs with \(measuredPacing): reported as such")
        }
        run.backToBack = backToBack
        run.reference = references
        run.flash = runningFlash
        if flash && !runningFlash {
            run.notes.append("--flash asked for, but Multiscreen runs without it: start it with run --flash")
        }
        if let referenceNote { run.notes.append(referenceNote) }
        for output in run.outputs where !output.presentedAvailable {
            run.notes.append(
                "\(output.name): the compositor sent no wp_presentation `presented` (sway 1.7 headless never does): "
                    + "its figures are message → frame callback (`frameDone`), not a presentation time")
        }
        return run
    }

    /// `weston-presentation-shm MODE` until it has printed 100 frames (30 s at most), then stopped.
    static func runReference(mode: String, environment: [String: String]) throws -> ReferenceRun {
        let client = try ChildProcess("weston-presentation-shm", [mode], environment: environment)
        defer { client.kill() }
        var run = ReferenceRun(mode: mode, commitToPresent: [], presentToPresent: [])
        try waitUntil(timeout: 30, "100 frames of weston-presentation-shm \(mode)") {
            if let status = client.exitStatus {
                throw HarnessError("weston-presentation-shm \(mode) exited with status \(status): \(client.output)")
            }
            run = ReferenceRun.parse(mode: mode, output: client.output)
            return run.commitToPresent.count >= 100
        }
        return run
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

    private func status(_ client: ControlClient) throws -> [String: JSONValue] {
        guard case .result(_, let result) = try client.request(.status) else {
            throw HarnessError("status refused")
        }
        return result
    }

    /// The screens in a `status` document, with the counters the report takes differences of.
    struct ScreenStatus {
        var name: String
        var content: String?
        var refreshNanoseconds: UInt64
        var committed = 0
        var presented = 0
        var discarded = 0
        var missedVblanks = 0
    }

    static func screens(_ value: JSONValue) -> [ScreenStatus] {
        guard case .array(let screens) = value else { return [] }
        return screens.compactMap { screen in
            let s = screen.objectValue
            guard case .string(let name)? = s["name"] else { return nil }
            var content: String?
            if case .string(let c)? = s["content"] { content = c }
            var refresh: UInt64 = 0
            if case .integer(let mHz)? = s["refreshMilliHertz"], mHz > 0 { refresh = UInt64(1e12 / Double(mHz)) }
            var status = ScreenStatus(name: name, content: content, refreshNanoseconds: refresh)
            let frames = s["frames"]?.objectValue ?? [:]
            let int: (JSONValue?) -> Int = { if case .integer(let n)? = $0 { return n } else { return 0 } }
            status.committed = int(frames["committed"])
            status.presented = int(frames["presented"])
            status.discarded = int(frames["discarded"])
            status.missedVblanks = int(s["latency"]?.objectValue["missedVblanks"])
            return status
        }
    }

    private func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// The `frame.shown` events of the run, by screen and message id; waited on by the sending loop.
final class EventCollector: @unchecked Sendable {
    private let condition = NSCondition()
    private var byScreen: [String: [UInt64: ShownMessage]] = [:]
    private var isSubscribed = false
    private var ended = false
    private var finished = false

    func subscribed() {
        condition.withLock {
            isSubscribed = true
            condition.broadcast()
        }
    }

    func streamEnded() {
        condition.withLock {
            ended = true
            condition.broadcast()
        }
    }

    func finish() { condition.withLock { finished = true } }
    var isFinished: Bool { condition.withLock { finished } }

    func add(_ event: Event) {
        guard let (screen, messages) = ShownMessage.parse(event) else { return }
        condition.withLock {
            for message in messages where byScreen[screen]?[message.id] == nil {
                byScreen[screen, default: [:]][message.id] = message
            }
            condition.broadcast()
        }
    }

    func shown(on screen: String) -> [UInt64: ShownMessage] { condition.withLock { byScreen[screen] ?? [:] } }

    func waitForSubscription(timeout: Double) -> Bool {
        wait(timeout: timeout) { isSubscribed }
    }

    /// Waits until message `id` is reported by every screen in `screens`.
    func waitUntilAccounted(_ id: UInt64, on screens: [String], timeout: Double) -> Bool {
        wait(timeout: timeout) { screens.allSatisfy { byScreen[$0]?[id] != nil } }
    }

    private func wait(timeout: Double, until done: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !done() {
            if ended || !condition.wait(until: deadline) { return done() }
        }
        return true
    }
}

/// A private headless compositor with `multiscreen run` on it, its own state, config and control socket.
final class EmbeddedSession {
    let compositor: any PrivateCompositor
    let app: ChildProcess
    let home: String
    var socket: String { home + "/control.sock" }

    init(
        compositor name: String, outputs: Int, width: Int, height: Int, logLevel: Logger.Level,
        runArguments: [String] = [], logger: Logger
    ) throws {
        logger.info("starting headless \(name) with \(outputs) outputs of \(width)x\(height)")
        compositor =
            name == "weston"
            ? try Weston(width: width, height: height, allowScreenshots: false)
            : try HeadlessSway(outputs: outputs, width: width, height: height)
        home = FileManager.default.temporaryDirectory.appendingPathComponent("multiscreen-latency-\(getpid())").path
        do {
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            app = try ChildProcess(
                "/proc/self/exe".resolvingSymlinks, ["run", "--log-level", logLevel.rawValue] + runArguments,
                environment: compositor.environment.merging([
                    "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config",
                    "MULTISCREEN_SOCKET": home + "/control.sock",
                ]) { $1 })
        } catch {
            compositor.stop()
            try? FileManager.default.removeItem(atPath: home)
            throw error
        }
        do {
            for output in try compositor.outputs() {
                _ = try app.waitForLine(containing: "first frame committed on \(output.name)", timeout: 30)
            }
            try waitUntil(timeout: 10, "the control socket") { FileManager.default.fileExists(atPath: socket) }
        } catch {
            stop()
            throw HarnessError("\(error)\n--- multiscreen log ---\n\(app.output)")
        }
    }

    func stop() {
        if app.isRunning {
            app.signal(SIGTERM)
            if (try? app.waitForExit(timeout: 5)) == nil { app.kill() }
        }
        compositor.stop()
        try? FileManager.default.removeItem(atPath: home)
    }
}
