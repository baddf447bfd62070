import CompositorHarness
import Foundation
import Testing

/// WPE WebKit is opened with the first page, not when Multiscreen starts: a kiosk that shows no page never loads it,
/// and one whose WebKit cannot be opened keeps running and says why in the log and in `status`. (That it is not
/// linked, and that its stand-ins are not exported, `OnDemandLibrariesTests` checks.)
@Suite(.serialized) struct WebEngineLoadingTests {
    /// Whether WPE WebKit is mapped into the process.
    static func hasWebKit(_ app: MultiscreenProcess) -> Bool {
        app.process.memoryMaps.contains("libWPEWebKit-1.1.so")
    }

    static func engine(_ app: MultiscreenProcess) throws -> [String: Any] {
        try #require(try app.statusResult()["web"] as? [String: Any])
    }

    @Test func webKitIsOpenedWithTheFirstPage() throws {
        let pages = try WebTestPages(["page.html": WebMirrorTests.page])
        defer { pages.remove() }
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        #expect(!Self.hasWebKit(app))
        #expect(try Self.engine(app)["state"] as? String == "idle")

        let url = pages.url("page.html").absoluteString
        let opened = try app.command(["web", "open", "--screen", "HEADLESS-2", url])
        #expect(opened.status == 0, "\(opened.output)")
        try app.waitForLog("web view: first frame of \(url)", timeout: 30)
        #expect(Self.hasWebKit(app))
        let engine = try Self.engine(app)
        #expect(engine["state"] as? String == "running")
        #expect(engine["viewsOpened"] as? Int == 1)
        #expect(engine["failures"] as? Int == 0)
    }

    @Test func aWebKitThatCannotBeOpenedIsReportedAndTheKioskKeepsRunning() throws {
        // A file of WebKit's library name that is no library, found first through LD_LIBRARY_PATH: what a broken or
        // half-removed WebKit looks like to the dynamic loader.
        let directory = try MediaFixtures.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("not a library".utf8).write(to: URL(fileURLWithPath: directory + "/libWPEWebKit-1.1.so.0"))
        let pages = try WebTestPages(["page.html": WebMirrorTests.page])
        defer { pages.remove() }
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        var environment = sway.environment
        environment["LD_LIBRARY_PATH"] = [directory, environment["LD_LIBRARY_PATH"]].compactMap { $0 }.joined(
            separator: ":")
        let app = try MultiscreenProcess(environment: environment)
        try app.waitForScreens(2)

        let url = pages.url("page.html").absoluteString
        let opened = try app.command(["web", "open", "--screen", "HEADLESS-2", url])
        #expect(opened.status == 0, "\(opened.output)")
        let line = try app.waitForLog("cannot show \(url)", timeout: 10)
        #expect(line.contains("WPE WebKit could not be opened: \(directory)/libWPEWebKit-1.1.so.0"), "\(line)")
        let engine = try Self.engine(app)
        #expect(engine["state"] as? String == "unavailable")
        #expect(engine["failures"] as? Int == 1)
        #expect((engine["lastError"] as? String)?.contains("WPE WebKit could not be opened") == true, "\(engine)")

        // The screen says it cannot show the page, as for a page that cannot load, and the kiosk goes on.
        try ScreenText.waitFor("Cannot show", on: "HEADLESS-2", in: sway, timeout: 15)
        #expect(try app.command(["send", "still here"]).status == 0)
        #expect(app.process.isRunning)
    }
}
