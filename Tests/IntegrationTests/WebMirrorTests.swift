import CompositorHarness
import Foundation
import Outputs
import Testing

/// A page shown in place of the controller UI is what the controller's mirrors show, on both mirror paths.
@Suite(.serialized) struct WebMirrorTests {
    /// A page of one colour no native screen uses, so a mirror showing it cannot be mistaken for the native UI.
    static let page = """
        <!doctype html><html><head><meta charset="utf-8"><style>
        html, body { background: #00c8c8; margin: 0; height: 100%; }
        </style></head><body></body></html>
        """
    static let pageColour = RGBColor(red: 0, green: 200, blue: 200)

    @Test(arguments: ["shared", "copy"]) func aMirrorOfAWebControllerShowsThePage(path: String) throws {
        let pages = try WebTestPages(["controller.html": Self.page])
        defer { pages.remove() }
        let url = pages.url("controller.html")

        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            """
            [[rule]]
            match = { name = "HEADLESS-2" }
            role = "external"
            content = "mirror"
            """, home: home)
        let app = try MultiscreenProcess(
            environment: sway.environment, arguments: ["run", "--mirror", path], home: home)
        try app.waitForScreens(2)
        let opened = try app.request(
            #"{"method": "web.open", "params": {"screen": "HEADLESS-1", "url": "\#(url.absoluteString)"}}"#)
        #expect(opened.contains("\"result\""), "\(opened)")
        _ = try sway.waitForScreenshot("HEADLESS-1", timeout: 30, "the page in place of the controller UI") {
            $0.fraction(of: Self.pageColour, tolerance: 8) > 0.9
        }
        _ = try sway.waitForScreenshot("HEADLESS-2", "the mirror showing the page (\(path))") {
            $0.fraction(of: Self.pageColour, tolerance: 8) > 0.9
        }
    }
}
