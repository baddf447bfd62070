import CompositorHarness
import Foundation
import Testing

/// A page opened at run time is shown again after a restart (the state file keeps which screen shows which URL).
@Suite(.serialized) struct WebRestoreTests {
    @Test func aPageOpenedAtRunTimeIsShownAgainAfterARestart() throws {
        let pages = try WebTestPages(["page.html": WebMirrorTests.page])
        defer { pages.remove() }
        let url = pages.url("page.html")

        let home = MultiscreenProcess.makeHome()
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        do {
            let first = try MultiscreenProcess(environment: sway.environment, home: home)
            try first.waitForScreens(2)
            let opened = try first.command(["web", "open", "--screen", "HEADLESS-2", url.absoluteString])
            #expect(opened.status == 0, "\(opened.output)")
            try first.waitForLog("web view: first frame of \(url.absoluteString)", timeout: 30)
            first.process.signal(SIGTERM)
            #expect(try first.process.waitForExit(timeout: 10) == 0)
        }
        let state = try String(contentsOfFile: home + "/state/multiscreen/state.json", encoding: .utf8)
        #expect(state.contains(#""HEADLESS-2" : "\#(url.absoluteString)""#), "\(state)")

        let second = try MultiscreenProcess(environment: sway.environment, home: home)
        try second.waitForLog("web view: first frame of \(url.absoluteString)", timeout: 30)
        try sway.waitForScreenshot("HEADLESS-2", "the restored page") {
            $0.fraction(of: WebMirrorTests.pageColour, tolerance: 8) > 0.9
        }
        #expect(try second.webPage("HEADLESS-2")?["state"] as? String == "shown")
    }
}
