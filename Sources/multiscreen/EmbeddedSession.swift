import CompositorHarness
import Foundation
import Logging

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
