import CompositorHarness
import Foundation
import Outputs
import Remote
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `multiscreen latency --embedded …`: the whole command, on a private headless compositor it starts itself.
@Suite(.serialized) struct LatencyCommandTests {
    /// Runs the command and returns its exit status, output and parsed `latency.json`.
    func run(_ arguments: [String]) throws -> (status: Int32, output: String, report: [String: Any], dir: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ms-latency-\(UUID().uuidString)").path
        let process = try ChildProcess(
            MultiscreenProcess.binary, ["latency"] + arguments + ["--out", dir],
            environment: ["MULTISCREEN_LOG_LEVEL": "info"])
        let status = try process.waitForExit(timeout: 120)
        let data = (try? Data(contentsOf: URL(fileURLWithPath: dir + "/latency.json"))) ?? Data()
        let report = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        return (status, process.output, report, dir)
    }

    func outputs(_ report: [String: Any]) -> [[String: Any]] { report["outputs"] as? [[String: Any]] ?? [] }

    func checkSVG(_ path: String) {
        guard let data = FileManager.default.contents(atPath: path) else {
            Issue.record("no SVG at \(path)")
            return
        }
        let parser = XMLParser(data: data)
        #expect(parser.parse(), "\(path) is not well-formed XML")
        #expect(String(decoding: data, as: UTF8.self).contains("<svg"))
    }

    /// weston 10 sends real `presented`: every message has a presented latency, none unaccounted.
    @Test func westonReportsPresentedLatency() throws {
        let result = try run(["--embedded", "weston", "--messages", "60", "--reference"])
        defer { try? FileManager.default.removeItem(atPath: result.dir) }
        #expect(result.status == 0, "\(result.output)")
        #expect(result.report["compositor"] as? String == "weston")
        let all = outputs(result.report)
        #expect(all.count == 1)
        for output in all {
            let messages = output["messages"] as? [String: Any] ?? [:]
            #expect(output["presentedAvailable"] as? Bool == true)
            #expect(output["source"] as? String == "presented")
            #expect(output["clock"] as? String == "CLOCK_MONOTONIC_RAW", "weston 10's presentation clock")
            #expect(messages["presented"] as? Int == 60, "\(messages)")
            #expect((messages["unaccounted"] as? [Any])?.isEmpty == true)
            let latency = output["messageToShownMs"] as? [String: Any] ?? [:]
            let p50 = latency["p50"] as? Double ?? 0
            let p99 = latency["p99"] as? Double ?? 0
            #expect(p50 > 0 && p50 <= p99 && p99 < 1000, "\(latency)")
            // The split adds up to the total, message by message.
            for sample in output["samples"] as? [[String: Any]] ?? [] {
                let parts = ["enqueueToDrainNs", "drainToCommitNs", "commitToShownNs"].map { sample[$0] as? Int ?? -1 }
                #expect(parts.allSatisfy { $0 >= 0 } && parts.reduce(0, +) == sample["messageToShownNs"] as? Int)
            }
            checkSVG(result.dir + "/latency-\(output["name"] as? String ?? "").svg")
        }
        // The reference client ran in the same session, both modes, and the ratio is reported.
        let reference = result.report["reference"] as? [String: Any] ?? [:]
        let runs = reference["runs"] as? [[String: Any]] ?? []
        #expect(runs.map { $0["mode"] as? String } == ["-p", "-f"], "\(result.output)")
        #expect(runs.allSatisfy { ($0["frames"] as? Int ?? 0) >= 100 })
        let ratio = (reference["commitToPresentedRatio"] as? [String: Any])?["headless"] as? Double ?? 0
        #expect(ratio > 0.5 && ratio < 2, "Multiscreen's commit → presented against the reference's: \(ratio)")
    }

    /// sway 1.7 headless never sends `presented`: the run still completes, every message is shown by the
    /// labelled frame-done fallback, and the report says `presented` was not available.
    @Test func swayReportsThatPresentedWasUnavailable() throws {
        let result = try run(["--embedded", "sway", "--outputs", "2", "--messages", "30", "--flash"])
        defer { try? FileManager.default.removeItem(atPath: result.dir) }
        #expect(result.status == 0, "\(result.output)")
        let all = outputs(result.report)
        #expect(all.map { $0["name"] as? String } == ["HEADLESS-1", "HEADLESS-2"])
        for output in all {
            let messages = output["messages"] as? [String: Any] ?? [:]
            #expect(output["presentedAvailable"] as? Bool == false)
            #expect(output["source"] as? String == "frameDone")
            #expect(messages["frameDone"] as? Int == 30, "\(messages)")
            // --flash: one message per frame here, so the patch alternates white, black, white, …
            let patches = (output["samples"] as? [[String: Any]] ?? []).map { $0["patch"] as? String }
            #expect(patches.count == 30)
            #expect(zip(patches, patches.dropFirst()).allSatisfy { $0 != nil && $1 != nil && $0 != $1 }, "\(patches)")
            #expect((messages["unaccounted"] as? [Any])?.isEmpty == true)
            checkSVG(result.dir + "/latency-\(output["name"] as? String ?? "").svg")
        }
        let notes = result.report["notes"] as? [String] ?? []
        #expect(notes.count == 2 && notes.allSatisfy { $0.contains("no wp_presentation `presented`") })
        #expect(result.report["flash"] as? Bool == true)
    }

    /// Measuring costs nothing when nobody asks: after messages were followed to `presented` (weston), an idle
    /// Multiscreen still makes no wakeups at all.
    @Test(arguments: ["frame", "immediate", "deadline"])
    func idleAfterMessagesMakesNoWakeups(pacing: String) throws {
        let weston = try Weston(width: 320, height: 240, allowScreenshots: false)
        let app = try MultiscreenProcess(environment: weston.environment, arguments: ["run", "--pacing", pacing])
        try app.waitForFirstFrame(on: "headless")
        for index in 1...3 { #expect(try app.command(["send", "idle \(index)"]).status == 0) }
        try waitUntil(timeout: 10, "3 messages presented in the status") {
            let status = try ControlClient(path: app.home + "/control.sock").exchange(line: #"{"method": "status"}"#)
            return status.contains(#""messagesPresented":3"#)
        }
        // Quiet for longer than the state save's delay (0.5 s after the messages), which is a wakeup of its own.
        try app.process.waitUntilQuiet(for: 0.8)
        // Throws unless the same Multiscreen ran through the whole second.
        let switches = try app.process.contextSwitches(during: 1.0)
        #expect(switches == 0, "an idle Multiscreen must not wake up")
        #expect(app.process.isRunning)
    }

    /// Photodiode mode on real pixels: the patch in the chosen corner of every screen (HEADLESS-2 is blank, which
    /// shows no message but still flashes) turns white with the first message's frame and black with the second's.
    @Test func flashPatchTogglesOnEveryScreen() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240, extraConfig: "seat * hide_cursor 100")
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            """
            [[rule]]
            match = { name = "HEADLESS-2" }
            role = "external"
            content = "blank"
            """, home: home)
        let app = try MultiscreenProcess(
            environment: sway.environment,
            arguments: ["run", "--flash", "--flash-size", "40", "--flash-corner", "bottom-right"], home: home)
        try app.waitForScreens(2)
        #expect(try app.command(["send", "one"]).status == 0)
        let white = RGBColor(red: 255, green: 255, blue: 255)
        let black = RGBColor(red: 0, green: 0, blue: 0)
        func patch(_ shot: Screenshot) -> RGBColor { shot.pixel(x: shot.width - 10, y: shot.height - 10) }
        for name in ["HEADLESS-1", "HEADLESS-2"] {
            let shot = try sway.waitForScreenshot(name, "the patch white") { patch($0) == white }
            // Only the corner: 40×40 at scale 1, the rest is the screen's own content.
            #expect(shot.pixel(x: shot.width - 45, y: shot.height - 10) != white)
        }
        #expect(try app.command(["send", "two"]).status == 0)
        for name in ["HEADLESS-1", "HEADLESS-2"] {
            try sway.waitForScreenshot(name, "the patch black") { patch($0) == black }
        }
    }

    /// `--pacing all --back-to-back`: one weston session per mode, each fully accounted for although messages did
    /// not wait for each other (frames discarded under `immediate` carry theirs to the next), compared per output.
    @Test func everyPacingModeComparedOnWeston() throws {
        let result = try run(["--embedded", "weston", "--messages", "20", "--pacing", "all", "--back-to-back"])
        defer { try? FileManager.default.removeItem(atPath: result.dir) }
        #expect(result.status == 0, "\(result.output)")
        #expect(result.report["schema"] as? String == "multiscreen-latency-all/1")
        let runs = result.report["runs"] as? [[String: Any]] ?? []
        #expect(runs.map { $0["pacing"] as? String } == ["frame", "immediate", "deadline"])
        for run in runs {
            let output = (run["outputs"] as? [[String: Any]])?.first ?? [:]
            #expect((output["messages"] as? [String: Any])?["presented"] as? Int == 20)
            checkSVG(result.dir + "/latency-\(run["pacing"] as? String ?? "")-headless.svg")
        }
        let row = (result.report["comparison"] as? [[String: Any]])?.first ?? [:]
        #expect(["frame", "immediate", "deadline"].contains(row["best"] as? String ?? ""), "\(row)")
    }

    /// Against a running Multiscreen the report states the pacing and flash it really runs with (from `status`),
    /// whatever the command line said.
    @Test func aRunningMultiscreensPacingIsReported() throws {
        let weston = try Weston(width: 320, height: 240, allowScreenshots: false)
        let app = try MultiscreenProcess(environment: weston.environment, arguments: ["run", "--pacing", "immediate"])
        try app.waitForFirstFrame(on: "headless")
        try waitUntil(timeout: 10, "the control socket") {
            FileManager.default.fileExists(atPath: app.home + "/control.sock")
        }
        let result = try run(["--socket", app.home + "/control.sock", "--messages", "5", "--flash"])
        defer { try? FileManager.default.removeItem(atPath: result.dir) }
        #expect(result.status == 0, "\(result.output)")
        #expect(result.report["compositor"] as? String == "session")
        #expect(result.report["pacing"] as? String == "immediate")
        #expect(result.report["flash"] as? Bool == false)
        let notes = result.report["notes"] as? [String] ?? []
        #expect(notes.contains { $0.contains("Multiscreen runs with immediate") }, "\(notes)")
        #expect(notes.contains { $0.contains("runs without it") }, "\(notes)")
    }

    @Test func unknownPacingIsAUsageError() throws {
        let process = try ChildProcess(MultiscreenProcess.binary, ["latency", "--pacing", "sometimes"])
        #expect(try process.waitForExit(timeout: 10) == 64)
        #expect(process.output.contains("--pacing takes frame, immediate, deadline or all"))
        let all = try ChildProcess(MultiscreenProcess.binary, ["latency", "--pacing", "all"])
        #expect(try all.waitForExit(timeout: 10) == 64)
        #expect(all.output.contains("it needs --embedded"))
    }
}
