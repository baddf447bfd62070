import CompositorHarness
import Foundation
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
        let result = try run(["--embedded", "sway", "--outputs", "2", "--messages", "30"])
        defer { try? FileManager.default.removeItem(atPath: result.dir) }
        #expect(result.status == 0, "\(result.output)")
        let all = outputs(result.report)
        #expect(all.map { $0["name"] as? String } == ["HEADLESS-1", "HEADLESS-2"])
        for output in all {
            let messages = output["messages"] as? [String: Any] ?? [:]
            #expect(output["presentedAvailable"] as? Bool == false)
            #expect(output["source"] as? String == "frameDone")
            #expect(messages["frameDone"] as? Int == 30, "\(messages)")
            #expect((messages["unaccounted"] as? [Any])?.isEmpty == true)
            checkSVG(result.dir + "/latency-\(output["name"] as? String ?? "").svg")
        }
        let notes = result.report["notes"] as? [String] ?? []
        #expect(notes.count == 2 && notes.allSatisfy { $0.contains("no wp_presentation `presented`") })
    }

    /// Measuring costs nothing when nobody asks: after messages were followed to `presented` (weston), an idle
    /// Multiscreen still makes no wakeups at all.
    @Test func idleAfterMessagesMakesNoWakeups() throws {
        let weston = try Weston(width: 320, height: 240, allowScreenshots: false)
        let app = try MultiscreenProcess(environment: weston.environment)
        try app.waitForLog("first frame committed on headless")
        for index in 1...3 { #expect(try app.command(["send", "idle \(index)"]).status == 0) }
        try waitUntil(timeout: 10, "3 messages presented in the status") {
            let status = try ControlClient(path: app.home + "/control.sock").exchange(line: #"{"method": "status"}"#)
            return status.contains(#""messagesPresented":3"#)
        }
        // Quiet for longer than the state save's delay (0.5 s after the messages), which is a wakeup of its own.
        try app.process.waitUntilQuiet(for: 0.8)
        let start = app.process.contextSwitches
        Thread.sleep(forTimeInterval: 1.0)  // the observation window itself, not a wait
        #expect(app.process.contextSwitches - start == 0, "an idle Multiscreen must not wake up")
    }

    @Test func unknownPacingIsAUsageError() throws {
        let process = try ChildProcess(MultiscreenProcess.binary, ["latency", "--pacing", "deadline"])
        #expect(try process.waitForExit(timeout: 10) == 64)
        #expect(process.output.contains("only `frame` is implemented"))
    }
}
