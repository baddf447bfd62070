import CompositorHarness
import Foundation
import Testing

/// Issue 29 on a real compositor: retries that apply once, a broken config that never puts the controller UI on a
/// public screen, `config check`, and the log never holding the texts people send.
@Suite(.serialized) struct OperatorSafetyTests {
    /// The same `requestId` twice over the control socket: one message applied, both requests answered alike.
    @Test func aRetriedRequestIsAppliedOnce() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 180)
        defer { sway.stop() }
        let app = try MultiscreenProcess(environment: sway.environment)
        defer { app.process.kill() }
        try app.waitForScreens(2, timeout: 30)
        let line = #"{"method": "send", "params": {"text": "only once"}, "requestId": "ops-1"}"#
        let first = try app.request(line)
        let retry = try app.request(line)
        #expect(first.contains("\"result\"") && retry == first, "\(first) / \(retry)")
        #expect(try app.messageTexts() == ["only once"])
        // The CLI sends an id of its own each time: two runs are two requests.
        #expect(try app.command(["send", "twice"]).status == 0)
        #expect(try app.command(["send", "twice"]).status == 0)
        #expect(try app.messageTexts().filter { $0 == "twice" }.count == 2)
        // What was sent is not in the log at info, only at debug (this instance logs debug).
        let infoLines = app.log.split(separator: "\n").filter { $0.contains(" info ") }
        #expect(!infoLines.contains { $0.contains("only once") }, "a message's text in an info line")
    }

    /// A typo beside valid rules: `config check` names its place; the kiosk starts without the controller UI on the
    /// output the rules made external (HEADLESS-1, first in order, would get it from the defaults), `status` says
    /// why; fixed and reloaded with SIGHUP it follows the rules, and broken again on SIGHUP it keeps them.
    @Test func aBrokenConfigFailsSafe() throws {
        let home = MultiscreenProcess.makeHome()
        let rules = """
            [[rule]]
            match = { name = "HEADLESS-2" }
            role = "controller"

            [[rule]]
            match = { name = "*" }
            role = "external"

            """
        let broken = rules + "[theme]\nbackground = \"#zzzzzz\"\n"
        let path = home + "/config/multiscreen/config.toml"
        try MultiscreenProcess.writeConfig(broken, home: home)
        let check = try ChildProcess(MultiscreenProcess.binary, ["config", "check", path])
        #expect(try check.waitForExit(timeout: 10) == 1)
        #expect(check.standardOutput.contains("\(path):9:1: 'theme.background' = \"#zzzzzz\""), "\(check.output)")

        let sway = try HeadlessSway(outputs: 2, width: 320, height: 180)
        defer { sway.stop() }
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        defer { app.process.kill() }
        try app.waitForScreens(2, timeout: 30)
        var status = try app.statusResult()
        #expect((status["config"] as? [String: Any])?["source"] as? String == "fail-safe", "\(status["config"] ?? "")")
        #expect(status["controller"] is NSNull, "no controller UI anywhere: \(status["controller"] ?? "")")
        let roles = (status["screens"] as? [[String: Any]] ?? []).map { $0["role"] as? String ?? "" }
        #expect(roles == ["external", "external"])

        try MultiscreenProcess.writeConfig(rules, home: home)
        app.process.signal(SIGHUP)
        try waitUntil(timeout: 10, "the fixed config in force") {
            ((try app.statusResult()["config"] as? [String: Any])?["source"] as? String) == "file"
        }
        status = try app.statusResult()
        #expect(status["controller"] as? String == "HEADLESS-2")
        try MultiscreenProcess.writeConfig(broken, home: home)
        app.process.signal(SIGHUP)
        try waitUntil(timeout: 10, "the broken reload reported") {
            ((try app.statusResult()["config"] as? [String: Any])?["source"] as? String) == "previous"
        }
        #expect(try app.statusResult()["controller"] as? String == "HEADLESS-2")
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)

        // Restarted with the broken file: the last good config (remembered beside the state) decides.
        let again = try MultiscreenProcess(environment: sway.environment, home: home)
        defer { again.process.kill() }
        try again.waitForScreens(2, timeout: 30)
        status = try again.statusResult()
        #expect((status["config"] as? [String: Any])?["source"] as? String == "last-good")
        #expect(status["controller"] as? String == "HEADLESS-2")
    }

    @Test func aGoodConfigChecksClean() throws {
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig("[[rule]]\nmatch = { name = \"*\" }\nrole = \"external\"\n", home: home)
        let check = try ChildProcess(
            MultiscreenProcess.binary, ["config", "check", home + "/config/multiscreen/config.toml"])
        #expect(try check.waitForExit(timeout: 10) == 0)
        #expect(check.standardOutput.contains("good (1 role rules)"), "\(check.output)")
    }
}
