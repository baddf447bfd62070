import CompositorHarness
import Foundation
import Outputs
import Testing

/// A web process that stops answering without exiting (stopped with SIGSTOP, as a page stuck in a loop or a
/// process stuck in the kernel would be): Multiscreen notices when a message it hands the page is not run, shows a
/// placeholder, recovers when the process answers again, and ends the process and loads the page again when it
/// does not.
@Suite(.serialized) struct WebHangTests {
    /// One colour no native screen uses, so the placeholder card cannot be mistaken for the page.
    static let page = """
        <!doctype html><html><head><meta charset="utf-8"><style>
        html, body { background: #00c8c8; margin: 0; height: 100%; }
        </style></head><body><script>function receiveMessage(text) {}</script></body></html>
        """
    static let pageColour = RGBColor(red: 0, green: 200, blue: 200)

    @Test func aHungWebProcessIsShownRecoversOrIsRestarted() throws {
        let pages = try WebTestPages(["page.html": Self.page])
        defer { pages.remove() }
        let url = pages.url("page.html")

        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            WebTestPages.externalRule(url: url), home: home)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForLog("web view: first frame of", timeout: 30)
        try waitUntil(timeout: 30, "the page drawing") { try app.webPage("HEADLESS-2")?["state"] as? String == "shown" }
        try sway.waitForScreenshot("HEADLESS-2", "the page") { $0.fraction(of: Self.pageColour, tolerance: 8) > 0.9 }
        let first = try #require(try app.webPage("HEADLESS-2")?["webProcess"] as? [String: Any])
        let pid = try #require((first["pid"] as? Int).map { Int32($0) })
        defer { kill(pid, SIGCONT) }

        // Stopped, then handed a message: the script delivering it is not run.
        #expect(kill(pid, SIGSTOP) == 0)
        #expect(try app.command(["send", "are you there"]).status == 0)
        try waitUntil(timeout: 10, "the page reported unresponsive") {
            try app.webPage("HEADLESS-2")?["state"] as? String == "unresponsive"
        }
        try app.waitForLog("the web process is not responding")
        try sway.waitForScreenshot("HEADLESS-2", "the placeholder instead of the page") {
            $0.fraction(of: Self.pageColour, tolerance: 8) < 0.05
        }

        // It answers again before it is ended: the page is back, the same process.
        #expect(kill(pid, SIGCONT) == 0)
        try waitUntil(timeout: 10, "the page shown again") {
            try app.webPage("HEADLESS-2")?["state"] as? String == "shown"
        }
        try app.waitForLog("the web process answers again")
        try sway.waitForScreenshot("HEADLESS-2", "the page again") {
            $0.fraction(of: Self.pageColour, tolerance: 8) > 0.9
        }
        let recovered = try #require(try app.webPage("HEADLESS-2"))
        #expect(recovered["hangs"] as? Int == 1 && recovered["hangRestarts"] as? Int == 0, "\(recovered)")

        // Stopped for good: ended after the grace and loaded again in a new web process.
        #expect(kill(pid, SIGSTOP) == 0)
        #expect(try app.command(["send", "still there?"]).status == 0)
        try waitUntil(timeout: 10, "unresponsive again") {
            try app.webPage("HEADLESS-2")?["state"] as? String == "unresponsive"
        }
        try app.waitForLog("the web process stopped responding; loading it again", timeout: 20)
        try waitUntil(timeout: 30, "the page drawn by a new web process") {
            let now = try app.webPage("HEADLESS-2")
            let process = now?["webProcess"] as? [String: Any]
            return now?["state"] as? String == "shown" && process.map { $0["pid"] as? Int != Int(pid) } ?? false
        }
        try sway.waitForScreenshot("HEADLESS-2", "the reloaded page") {
            $0.fraction(of: Self.pageColour, tolerance: 8) > 0.9
        }
        let restarted = try #require(try app.webPage("HEADLESS-2"))
        #expect(restarted["hangs"] as? Int == 2 && restarted["hangRestarts"] as? Int == 1, "\(restarted)")
        #expect(app.process.isRunning)
    }
}
