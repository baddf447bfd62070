import CompositorHarness
import Foundation
import Testing

/// `[web]` in a real `multiscreen run`: a local page is held to what its origin (`file://`) is granted, and the
/// web processes' memory limit is applied and reported.
@Suite(.serialized) struct WebConfigPageTests {
    /// Asks for `send` (in the default grant, not in this config's) and `status` (granted), and shows the answers.
    static let page = """
        <!doctype html><html><head><meta charset="utf-8"><style>
        body { background: #ffffff; color: #000000; font: 30px sans-serif; margin: 12px; }
        </style></head><body><div id="send"></div><div id="status"></div><script>
        window.addEventListener('load', function () {
          multiscreen.send('not for this origin').then(function () { document.getElementById('send').textContent = 'sent'; })
            .catch(function (error) { document.getElementById('send').textContent = 'send refused ' + error.code; });
          multiscreen.request('status').then(function (status) {
            document.getElementById('status').textContent = 'status ' + status.screens.length + ' screens';
          });
        });
        </script></body></html>
        """

    @Test func aPageGetsWhatItsOriginIsGrantedAndTheMemoryLimitIsReported() throws {
        let pages = try WebTestPages(["page.html": Self.page])
        defer { pages.remove() }
        let url = pages.url("page.html")

        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            WebTestPages.externalRule(url: url)
                + """

                [web]
                memory_limit = 300

                [web.permissions]
                "file://" = ["status", "card.*"]
                """, home: home)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForLog("web views: each web process limited to 300 MiB", timeout: 30)
        try app.waitForLog("web view: first frame of", timeout: 30)
        try app.waitForLog(
            "web:HEADLESS-2: refused a page's request: send is not permitted to a page from file:// (permitted: "
                + "card.close, card.discard, card.open, card.reopen, status)", timeout: 30)
        try waitUntil(timeout: 20, "the status request answered and the refusal counted") {
            let counters = try app.statusResult()["web:HEADLESS-2"] as? [String: Any]
            return counters?["notAllowed"] as? Int == 1 && counters?["enqueued"] as? Int == 1
        }
        #expect(try app.messageTexts().isEmpty, "the refused send reached the bus")
        let page = try #require(try app.webPage("HEADLESS-2"))
        #expect(page["memoryLimitMiB"] as? Int == 300, "\(page)")
        try waitUntil(timeout: 20, "the page drawing") { try app.webPage("HEADLESS-2")?["state"] as? String == "shown" }
        #expect(app.process.isRunning)
    }
}

/// Over `[web] memory_limit`, WebKit ends the web process and the page is loaded again like after a crash.
@Suite(.serialized) struct WebMemoryLimitTests {
    /// Holds 200 MiB, touched so it is resident, well over the 64 MiB limit.
    static let page = """
        <!doctype html><html><head><meta charset="utf-8"></head><body><script>
        window.held = [];
        for (var i = 0; i < 50; i++) { var block = new Uint8Array(4 << 20); block.fill(1); window.held.push(block); }
        </script></body></html>
        """

    @Test func aWebProcessOverTheLimitIsEndedAndThePageReloaded() throws {
        let pages = try WebTestPages(["page.html": Self.page])
        defer { pages.remove() }
        let url = pages.url("page.html")
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            WebTestPages.externalRule(url: url)
                + """

                [web]
                memory_limit = 64
                """, home: home)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForLog("web view: loading", timeout: 30)
        let started = Date()
        try app.waitForLog("the web process exceeded its memory limit", timeout: 90)
        print("memory limit: web process ended \(Date().timeIntervalSince(started)) s after the page was opened")
        #expect(try app.webPage("HEADLESS-2")?["crashes"] as? Int ?? 0 >= 1)
    }
}
