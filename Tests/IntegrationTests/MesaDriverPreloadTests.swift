import CompositorHarness
import Foundation
import Testing

/// Without a GPU, `run` loads Mesa's driver on a thread of its own before it parses its arguments
/// (`MesaDriverPreload`), and Mesa's own load of the driver finds that copy; no other command loads it. Read from the
/// dynamic loader's own account (`LD_DEBUG=files`).
@Suite(.enabled(if: !hasRenderNode(), "with a GPU Mesa chooses the driver; nothing is preloaded"))
struct MesaDriverPreloadTests {
    /// The loader's lines about `swrast_dri.so`.
    static func driverLines(_ log: String) -> [Substring] {
        log.split(separator: "\n").filter { $0.contains("swrast_dri.so [0];") }
    }

    /// The loader writes "dynamically loaded by" for each `dlopen` of a name it has not loaded under that name, and
    /// "generating link map" only for a file it maps: the first load is the preload's, and Mesa's own (under another
    /// spelling of the path, or none) maps nothing more.
    @Test func runLoadsTheDriverOnceBeforeMesaAsksForIt() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 180)
        let app = try MultiscreenProcess(environment: sway.environment.merging(["LD_DEBUG": "files"]) { $1 })
        try app.waitForScreens(1)
        let lines = Self.driverLines(app.log)
        let first = lines.first { $0.contains("dynamically loaded by") }
        #expect(first.map { $0.hasSuffix("\(MultiscreenProcess.binary) [0]") } ?? false, "not the preload's: \(lines)")
        #expect(lines.filter { $0.contains("generating link map") }.count == 1, "mapped twice: \(lines)")
    }

    /// A `run` that cannot start exits while the driver may still be loading: it waits for the loads and exits 1, as
    /// documented, ten times out of ten. (That no exit handler ran during the driver's constructors cannot be seen
    /// from outside; this checks the exit does not crash or hang.)
    @Test func aRunThatCannotStartExitsOne() throws {
        let home = MultiscreenProcess.makeHome()
        defer { try? FileManager.default.removeItem(atPath: home) }
        for _ in 0..<10 {
            let run = try ChildProcess(
                MultiscreenProcess.binary, ["run", "--display", home + "/no-compositor"],
                environment: [
                    "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config",
                    "MULTISCREEN_SOCKET": home + "/control.sock",
                ])
            #expect(try run.waitForExit(timeout: 10) == 1, "\(run.output.suffix(2000))")
        }
    }

    /// Help is printed at once: nothing is loaded for it.
    @Test func runsHelpLoadsNothingOfMesas() throws {
        let help = try ChildProcess(MultiscreenProcess.binary, ["run", "--help"], environment: ["LD_DEBUG": "files"])
        #expect(try help.waitForExit(timeout: 10) == 0)
        #expect(Self.driverLines(help.output).isEmpty && !help.output.contains("libEGL_mesa.so.0 [0];  dynamically"))
    }

    @Test func otherCommandsLoadNothingOfMesas() throws {
        let home = MultiscreenProcess.makeHome()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let status = try ChildProcess(
            MultiscreenProcess.binary, ["status"],
            environment: ["LD_DEBUG": "files", "MULTISCREEN_SOCKET": home + "/control.sock"])
        #expect(try status.waitForExit(timeout: 10) != 0, "no Multiscreen runs there")
        #expect(!status.output.contains("libEGL_mesa.so.0 [0];  dynamically loaded"), "\(status.output.suffix(2000))")
        #expect(Self.driverLines(status.output).isEmpty)
    }
}

private func hasRenderNode() -> Bool {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/dri")) ?? []).contains { $0.hasPrefix("renderD") }
}
