import CompositorHarness
import Foundation
import Outputs
import Testing

/// Issue 25, item 7: a page's `<video>` plays (WPE WebKit plays media through GStreamer), and a page whose media
/// fails gets the error in the page, its web process alive.
@Suite(.serialized) struct WebVideoTests {
    static func page(video: String) -> String {
        """
        <!doctype html>
        <html><body style="margin:0;background:#000">
        <video id="v" src="\(video)" autoplay muted loop style="width:100vw;height:80vh;display:block"></video>
        <div id="state" style="color:#fff;font:32px sans-serif;height:20vh">waiting</div>
        <script>
          const v = document.getElementById("v"), state = document.getElementById("state");
          state.textContent = "mp4 " + (v.canPlayType('video/mp4; codecs="avc1.42E01E"') || "no");
          v.addEventListener("error", () => { state.textContent = "MEDIA ERROR " + (v.error ? v.error.code : "?"); });
          v.addEventListener("playing", () => { state.textContent = "PLAYING"; });
        </script>
        </body></html>
        """
    }

    @Test func aVideoInAPagePlays() throws {
        let directory = try MediaFixtures.directory()
        let video = try MediaVideoTests.makeVideo(in: directory, seconds: 3)
        let pages = try WebTestPages(["video.html": Self.page(video: URL(fileURLWithPath: video).absoluteString)])
        defer { pages.remove() }
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(WebTestPages.externalRule(url: pages.url("video.html")), home: home)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForLog("web view: loaded", timeout: 30)
        try ScreenText.waitFor("PLAYING", on: "HEADLESS-2", in: sway, timeout: 30)
        // Its frames advance: the video's part of the screen changes between two screenshots.
        let first = try sway.screenshot("HEADLESS-2").region(x: 0, y: 0, width: 640, height: 280)
        try sway.waitForScreenshot("HEADLESS-2", "the page's video advancing") {
            $0.region(x: 0, y: 0, width: 640, height: 280).fraction(differingFrom: first) > 0.01
        }
        #expect(!app.log.contains("web process crashed"))
        // Without GStreamer's GL plugin WebKit 2.38 says so and plays through a sink that over-releases every frame,
        // which crashed its web process in 2 of 9 playbacks here: caught here on every run, not by chance.
        #expect(!app.log.contains("GL video sink dependencies"))
        #expect(!app.log.contains("gst_mini_object_unref"))
        #expect(app.process.isRunning)
    }

    @Test func aPageWhoseMediaFailsGetsTheErrorAndKeepsItsProcess() throws {
        let directory = try MediaFixtures.directory()
        let broken = directory + "/broken.mp4"
        try Data("not a video at all".utf8).write(to: URL(fileURLWithPath: broken))
        let pages = try WebTestPages(["video.html": Self.page(video: URL(fileURLWithPath: broken).absoluteString)])
        defer { pages.remove() }
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(WebTestPages.externalRule(url: pages.url("video.html")), home: home)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForLog("web view: loaded", timeout: 30)
        try ScreenText.waitFor("MEDIA ERROR", on: "HEADLESS-2", in: sway, timeout: 30)
        #expect(!app.log.contains("web process crashed"))
    }
}
