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

    @Test func runLoadsTheDriverOnceBeforeMesaAsksForIt() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 180)
        let app = try MultiscreenProcess(environment: sway.environment.merging(["LD_DEBUG": "files"]) { $1 })
        try app.waitForScreens(1)
        let lines = Self.driverLines(app.log)
        let loads = lines.filter { $0.contains("dynamically loaded by") }
        #expect(loads.count >= 2, "the preload's load and Mesa's: \(lines)")
        #expect(loads.first.map { !$0.contains("libEGL_mesa") } ?? false, "the first load is Mesa's own: \(lines)")
        #expect(loads.contains { $0.contains("libEGL_mesa") }, "Mesa asked for its driver: \(lines)")
        // A file loaded anew gets a link map; one found loaded (by any of its names) does not.
        #expect(lines.filter { $0.contains("generating link map") }.count == 1, "loaded twice: \(lines)")
    }

    /// A `run` that cannot start exits while the driver may still be loading: it waits for the loads, and exits 1 as
    /// documented, never in a library's half-run constructors.
    @Test func aRunThatCannotStartExitsOneAfterTheLoads() throws {
        let home = MultiscreenProcess.makeHome()
        defer { try? FileManager.default.removeItem(atPath: home) }
        for _ in 0..<10 {
            let run = try ChildProcess(
                MultiscreenProcess.binary, ["run", "--display", home + "/no-compositor"],
                environment: [
                    "LD_DEBUG": "files", "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config",
                    "MULTISCREEN_SOCKET": home + "/control.sock",
                ])
            #expect(try run.waitForExit(timeout: 10) == 1, "\(run.output.suffix(2000))")
            let lines = run.output.split(separator: "\n")
            let driverReady = lines.firstIndex { $0.contains("calling init:") && $0.hasSuffix("swrast_dri.so") }
            let exitBegan = lines.firstIndex { $0.contains("calling fini:") }
            #expect(driverReady != nil && exitBegan != nil && driverReady! < exitBegan!, "\(lines.suffix(40))")
        }
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
