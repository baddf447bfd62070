import ArgumentParser
import CompositorHarness
import Foundation
import Logging
import Messaging
import MultiscreenApp
import Outputs
import Remote
import Screens

/// `multiscreen demo`: the whole product on a machine with no Wayland session.
///
/// Starts a private headless sway with N outputs, runs `multiscreen run` on it as a child process, waits until
/// every screen shows its own content (checked on real pixels, not assumed), writes one PNG per screen, prints
/// their paths and stops every process it started.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start a private headless compositor, run Multiscreen on it and write a PNG per screen.")

    @OptionGroup var logging: LoggingOptions
    @Option(help: "Number of screens (headless outputs).")
    var outputs = 2
    @Option(help: "Directory for the screenshots (created if missing).")
    var out = "multiscreen-demo"
    @Option(help: "Width of each screen in pixels.")
    var width = 1280
    @Option(help: "Height of each screen in pixels.")
    var height = 720
    @Option(help: "Seconds to wait for every screen to show its content.")
    var timeout = 30.0
    @Option(help: "The message the demo sends to the external screens.")
    var message = "Hello from Multiscreen · 안녕하세요"
    @Option(
        help: ArgumentHelp(
            "A web app directory with main.html and external.html (examples/starter-kit): the controller shows main.html, which presses its own Send with --message, the other screens external.html.",
            valueName: "directory"))
    var web: String?
    @Flag(
        help: """
            Keep the compositor and Multiscreen running after the screenshots, until SIGINT (Ctrl-C) or SIGTERM: \
            prints the control socket, config file and display to try the other commands against.
            """)
    var keep = false
    /// For tests of the demo itself: the program run as `<client> run …` instead of this executable.
    @Option(help: .hidden)
    var client: String?

    func validate() throws {
        guard (1...16).contains(outputs) else { throw ValidationError("--outputs must be between 1 and 16") }
        guard width >= 64, height >= 64 else { throw ValidationError("--width and --height must be at least 64") }
    }

    mutating func run() throws {
        // Blocked before any thread starts, so every thread inherits the mask and only `waitForStopSignal` sees
        // them: Ctrl-C then stops what the demo started instead of killing the demo and leaving it running.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        if keep { pthread_sigmask(SIG_BLOCK, &stopSignals, nil) }
        logging.bootstrap()
        let logger = Logger(label: "multiscreen.demo")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        logger.info("starting headless sway with \(outputs) outputs of \(width)x\(height)")
        let sway = try HeadlessSway(outputs: outputs, width: width, height: height)
        defer { sway.stop() }
        // The demo's state, config and control socket are its own: a demo must not touch the user's.
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("multiscreen-demo-\(getpid())").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        if let web { try writeWebConfig(app: web, home: home) }
        let app = try ChildProcess(
            client ?? "/proc/self/exe".resolvingSymlinks, ["run", "--log-level", logging.logLevel.rawValue],
            environment: sway.environment.merging([
                "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config",
                "MULTISCREEN_SOCKET": home + "/control.sock",
            ]) { $1 })
        defer { app.kill() }
        if web != nil {
            try waitForWebApp(app, sway: sway, control: ControlClient(path: home + "/control.sock"))
        } else if outputs > 1 {
            // The starter kit's moment: a message from the controller side shows up on every external screen.
            for name in try sway.outputs().map(\.name) {
                _ = try app.waitForLine(containing: "first frame committed on \(name)", timeout: timeout)
            }
            let client = ControlClient(path: home + "/control.sock")
            try waitUntil(timeout: timeout, "the control socket") {
                FileManager.default.fileExists(atPath: client.path)
            }
            _ = try client.exchange(line: MessageCodec.encodeRequest(.send(text: message, screen: nil)))
            _ = try app.waitForLine(containing: "message #1 for every screen", timeout: timeout)
        }

        let names = try sway.outputs().map(\.name).sorted { $0.naturalOrder($1) }
        var paths: [String] = []
        for (index, name) in names.enumerated() where web == nil {
            let colour = ScreenPalette.background(forScreenAt: index)
            do {
                try sway.waitForScreenshot(name, timeout: timeout, "\(name) showing its screen") {
                    // External screens: their own colour with the message (text-colour ink; there is no other
                    // white on them); the controller: its UI.
                    $0.fraction(of: colour, tolerance: 2) > 0.5
                        && (index == 0 || outputs == 1
                            || $0.fraction(of: RGBColor(hex: 0xF8_FA_FC), tolerance: 8) > 0.002)
                }
            } catch {
                FileHandle.standardError.write(Data("multiscreen log:\n\(app.output)\n".utf8))
                throw error
            }
            let path = (out as NSString).appendingPathComponent("\(name).png")
            try sway.screenshotPNG(name, to: path)
            paths.append((path as NSString).standardizingPath)
        }
        for name in names where web != nil {
            let path = (out as NSString).appendingPathComponent("\(name).png")
            try sway.screenshotPNG(name, to: path)
            paths.append((path as NSString).standardizingPath)
        }
        if keep {
            for path in paths { print(URL(fileURLWithPath: path).path) }
            let display = sway.environment["XDG_RUNTIME_DIR"]! + "/" + sway.environment["WAYLAND_DISPLAY"]!
            let command = "/proc/self/exe".resolvingSymlinks
            try FileManager.default.createDirectory(
                atPath: home + "/config/multiscreen", withIntermediateDirectories: true)
            print(
                """
                Multiscreen keeps running (pid \(app.pid)) until Ctrl-C or SIGTERM. In another shell:
                  export MULTISCREEN_SOCKET=\(home)/control.sock
                  \(command) send "Hello"
                  \(command) status
                Its config (none yet): \(home)/config/multiscreen/config.toml (kill -HUP \(app.pid) reloads it)
                Its display: WAYLAND_DISPLAY=\(display) (e.g. grim -o \(names[0]) shot.png)
                """)
            fflush(nil)
            var received: Int32 = 0
            sigwait(&stopSignals, &received)
            logger.info("signal \(received): stopping Multiscreen and the compositor")
        }
        app.signal(SIGTERM)
        let status = try app.waitForExit(timeout: 5)
        if !keep { for path in paths { print(URL(fileURLWithPath: path).path) } }
        // The screenshots exist, but a Multiscreen that did not shut down cleanly is a failed demo.
        if status != 0 {
            logger.error("multiscreen exited with status \(status) after SIGTERM; its log:\n\(app.output)")
            throw ExitCode(status)
        }
        logger.info("multiscreen shut down cleanly (status 0)")
    }
}

extension Demo {
    /// The controller shows `<app>/main.html?send=<message>` (the page presses its own Send), every other screen
    /// `<app>/external.html`.
    private func writeWebConfig(app: String, home: String) throws {
        let directory = URL(fileURLWithPath: app).standardizedFileURL
        for page in ["main.html", "external.html"]
        where !FileManager.default.fileExists(atPath: directory.appendingPathComponent(page).path) {
            throw ValidationError("--web \(app): no \(page) there")
        }
        // main.html without `?send=` for now: `waitForWebApp` opens it with the message once every page loaded.
        let main = directory.appendingPathComponent("main.html").absoluteString
        let external = directory.appendingPathComponent("external.html").absoluteString
        try FileManager.default.createDirectory(atPath: home + "/config/multiscreen", withIntermediateDirectories: true)
        try """
        [[rule]]
        match = { name = "HEADLESS-1" }
        role = "controller"
        content = "web"
        url = "\(main)"

        [[rule]]
        match = { name = "*" }
        role = "external"
        content = "web"
        url = "\(external)"
        """.write(toFile: home + "/config/multiscreen/config.toml", atomically: true, encoding: .utf8)
    }

    /// Waits until every page has loaded, then shows `main.html?send=<message>` on the controller (the page
    /// presses its own Send), waits for the message to arrive and for every screen's picture to settle (two
    /// screenshots in a row alike). The message is sent only once every page has loaded because a page still
    /// loading when a message comes never gets it: with main.html sending on its own first load, the external page
    /// sometimes finished loading after the message and its screenshot said "Waiting for a message…".
    private func waitForWebApp(_ app: ChildProcess, sway: HeadlessSway, control: ControlClient) throws {
        let loaded = { app.output.components(separatedBy: "web view: loaded").count - 1 >= outputs }
        try waitUntil(timeout: timeout, "every page to load (log: \(app.output.suffix(2000)))", loaded)
        if let controller = try sway.outputs().map(\.name).sorted(by: { $0.naturalOrder($1) }).first {
            var query = URLComponents()
            query.queryItems = [URLQueryItem(name: "send", value: message)]
            let main = URL(fileURLWithPath: web!).standardizedFileURL.appendingPathComponent("main.html")
            let url = main.absoluteString + "?" + (query.percentEncodedQuery ?? "")
            guard case .result = try control.request(.openWeb(screen: controller, url: url)) else {
                throw HarnessError("the controller page could not be opened with the message")
            }
        }
        if outputs > 1 { _ = try app.waitForLine(containing: "message #1 for every screen", timeout: timeout) }
        for name in try sway.outputs().map(\.name) {
            var previous: Screenshot?
            try waitUntil(timeout: timeout, "\(name) to settle") {
                let shot = try sway.screenshot(name)
                defer { previous = shot }
                return previous.map { shot.fraction(differingFrom: $0) == 0 } ?? false
            }
        }
    }
}

extension String {
    var resolvingSymlinks: String { (try? FileManager.default.destinationOfSymbolicLink(atPath: self)) ?? self }
}
