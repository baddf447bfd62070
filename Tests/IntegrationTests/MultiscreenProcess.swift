import CompositorHarness
import Foundation
import Outputs
import Screens

/// The `multiscreen` binary under test, run as a real client of a private compositor.
///
/// `swift test` builds it next to the test bundle (`.build/<config>/multiscreen`); `MULTISCREEN_BINARY`
/// overrides that (e.g. to test an installed build).
struct MultiscreenProcess {
    let process: ChildProcess
    let started = Date()

    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["MULTISCREEN_BINARY"] { return path }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var dir = (exe as NSString).deletingLastPathComponent
        // swift-testing on Linux runs `<config>/multiscreenPackageTests.xctest`; XCTest may run from inside a bundle.
        while !dir.isEmpty && dir != "/" {
            let candidate = (dir as NSString).appendingPathComponent("multiscreen")
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = (dir as NSString).deletingLastPathComponent
        }
        return "multiscreen"
    }

    /// Config, state and control socket of this instance: private, so tests never share state (or touch the
    /// user's). Pass the same directory to a second instance to test restoring state after a restart.
    let home: String

    init(
        environment: [String: String], arguments: [String] = ["run"], home: String? = nil, keptLines: Int = 50_000
    ) throws {
        let home = home ?? Self.makeHome()
        self.home = home
        let isolated = [
            "MULTISCREEN_LOG_LEVEL": "debug", "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config",
            "MULTISCREEN_SOCKET": home + "/control.sock", "XDG_CACHE_HOME": home + "/cache",
        ]
        process = try ChildProcess(
            Self.binary, arguments, environment: environment.merging(isolated) { $1 }, keptLines: keptLines)
    }

    static func makeHome() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ms-home-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(
            atPath: path + "/config/multiscreen", withIntermediateDirectories: true)
        return path
    }

    /// Writes `config.toml` for the next instance that uses this home.
    static func writeConfig(_ text: String, home: String) throws {
        try text.write(toFile: home + "/config/multiscreen/config.toml", atomically: true, encoding: .utf8)
    }

    /// Runs a CLI command (`send`, `status --json`, …) against this instance's control socket.
    func command(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let cli = try ChildProcess(
            Self.binary, arguments,
            environment: environment.merging(["MULTISCREEN_SOCKET": home + "/control.sock"]) { $1 })
        let status = try cli.waitForExit(timeout: 10)
        return (status, cli.output)
    }

    /// Waits for a log line; on timeout the error carries the whole log.
    @discardableResult
    func waitForLog(_ text: String, timeout: Double = 10) throws -> String {
        do {
            return try process.waitForLine(containing: text, timeout: timeout)
        } catch {
            throw HarnessError("\(error)\n--- multiscreen log ---\n\(process.output)")
        }
    }

    /// Waits until `count` occurrences of `text` have been logged.
    func waitForLogCount(_ text: String, count: Int, timeout: Double = 10) throws {
        try waitUntil(timeout: timeout, "\(count)× '\(text)' in the log") {
            process.output.components(separatedBy: text).count - 1 >= count
        }
    }

    var log: String { process.output }
}

/// The background a screen at `index` must show (see ``ScreenPalette``).
func expectedBackground(_ index: Int) -> RGBColor {
    ScreenPalette.background(forScreenAt: index)
}

/// A screen shows "its own content": mostly its own background colour, with text drawn in the text colour (the
/// controller, a screen with messages), or nothing but its background edge to edge (an idle external screen).
///
/// External screens have no chrome any more: the 14 px white bar that used to supply most of the text-colour
/// pixels is gone, so the threshold is the content's own ink: 0.1% of the pixels exactly in the text colour ("still
/// here" at 320×240 measured 0.2%, about 150 pixels; a screen without text has none).
func showsScreen(_ shot: Screenshot, index: Int) -> Bool {
    let textColour = ScreenPalette.text
    let background = shot.fraction(of: expectedBackground(index), tolerance: 2)
    return background > 0.995 || (background > 0.6 && shot.fraction(of: textColour, tolerance: 8) > 0.001)
}
