import CompositorHarness
import Foundation
import Outputs
import Testing

/// Issue 25, video: one pipeline for every screen that shows the same file, frames that advance through the loop
/// point, a screen added while it plays, and damaged files refused. The videos are made here by ffmpeg (a counting
/// test card).
@Suite(.serialized) struct MediaVideoTests {
    /// A 320×240, 30 fps H.264 MP4 of `seconds` of one of ffmpeg's test sources: by default its test card (a moving
    /// gradient and a frame counter).
    static func makeVideo(
        in directory: String, seconds: Int = 2, name: String = "card.mp4", source: String = "testsrc",
        codec: [String] = [
            "-c:v", "libx264", "-pix_fmt", "yuv420p",
        ]
    ) throws -> String {
        let path = directory + "/" + name
        try MediaFixtures.ffmpeg(
            ["-f", "lavfi", "-i", "\(source)=size=320x240:rate=30", "-t", "\(seconds)"] + codec + [path])
        return path
    }

    static func media(_ app: MultiscreenProcess, _ screen: String) throws -> [String: Any] {
        let screens = try SharedMirrorTests.status(app)["screens"] as? [[String: Any]] ?? []
        return screens.first { $0["name"] as? String == screen }?["media"] as? [String: Any] ?? [:]
    }

    /// A message sent to every screen, and HEADLESS-2 once it shows it settled (two screenshots in a row alike): what
    /// a refused file must leave on screen.
    static func settledMessage(_ app: MultiscreenProcess, on sway: HeadlessSway) throws -> Screenshot {
        _ = try app.request(#"{"method": "send", "params": {"text": "still here"}}"#)
        var previous: Screenshot?
        return try sway.waitForScreenshot("HEADLESS-2", "the message, settled") { shot in
            defer { previous = shot }
            return shot.fraction(of: RGBColor(hex: 0)) < 0.99
                && previous.map { shot.fraction(differingFrom: $0) == 0 } == true
        }
    }

    @Test func oneVideoOnTwoScreensIsOnePipelineAndPlaysThroughItsLoop() throws {
        let directory = try MediaFixtures.directory()
        let video = try Self.makeVideo(in: directory)
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 480)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(3)

        for screen in ["HEADLESS-2", "HEADLESS-3"] {
            let result = try app.command(["media", "show", "--screen", screen, "--loop", video])
            #expect(result.status == 0, "\(result.output)")
        }
        // Frames advance on both screens.
        for screen in ["HEADLESS-2", "HEADLESS-3"] {
            let first = try sway.waitForScreenshot(screen, "the video") { $0.fraction(of: RGBColor(hex: 0)) < 0.9 }
            try sway.waitForScreenshot(screen, "a later frame of the video") {
                $0.fraction(differingFrom: first) > 0.01
            }
        }
        // Past the end of the 2 s clip: still playing, the loop counted, no error.
        Thread.sleep(forTimeInterval: 3)
        let before = try Self.media(app, "HEADLESS-2")
        Thread.sleep(forTimeInterval: 1)
        let after = try Self.media(app, "HEADLESS-2")
        #expect(after["state"] as? String == "playing")
        #expect((after["loops"] as? Int ?? 0) >= 1, "\(after)")
        let shown = (after["framesShown"] as? Int ?? 0) - (before["framesShown"] as? Int ?? 0)
        #expect(shown >= 20, "\(shown) frames shown in 1 s of a 30 fps video: \(after)")
        #expect(after["decoder"] as? String != nil)
        // Decoded once: one pipeline played it.
        #expect(app.log.components(separatedBy: "playing with").count - 1 == 1, "\(app.log)")
        #expect(!app.log.contains("protocol error"))

        // A screen added while it plays joins it.
        let added = try sway.createOutput()
        try app.waitForFirstFrame(on: "\(added)")
        #expect(try app.command(["media", "show", "--screen", added, "--loop", video]).status == 0)
        let joined = try sway.waitForScreenshot(added, "the video on the new screen") {
            $0.fraction(of: RGBColor(hex: 0)) < 0.9
        }
        try sway.waitForScreenshot(added, "the video advancing on the new screen") {
            $0.fraction(differingFrom: joined) > 0.01
        }
        #expect(app.log.components(separatedBy: "playing with").count - 1 == 1)

        // Stopped everywhere: the pipeline goes.
        for screen in ["HEADLESS-2", "HEADLESS-3", added] {
            #expect(try app.command(["media", "stop", "--screen", screen]).status == 0)
        }
        try app.waitForLog("video pipeline stopped")
        #expect(app.process.isRunning)
    }

    /// A video alone on the only external screen shows: its subsurface joins the window with the window's next commit,
    /// which nothing else would have made (bench media found the screen black while `status` said playing).
    @Test func aVideoAloneOnOneScreenShows() throws {
        let directory = try MediaFixtures.directory()
        let video = try Self.makeVideo(in: directory)
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 480)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        #expect(try app.command(["media", "show", "--screen", "HEADLESS-2", "--loop", video]).status == 0)
        let first = try sway.waitForScreenshot("HEADLESS-2", "the video") { $0.fraction(of: RGBColor(hex: 0)) < 0.5 }
        try sway.waitForScreenshot("HEADLESS-2", "the video advancing") { $0.fraction(differingFrom: first) > 0.01 }
    }

    /// A screen whose output goes away while it plays gives its buffers back; the other screen plays on.
    @Test func aScreenRemovedWhilePlayingReleasesItsBuffers() throws {
        let directory = try MediaFixtures.directory()
        let video = try Self.makeVideo(in: directory)
        let outer = try HeadlessSway(outputs: 1, width: 1600, height: 900)
        let nested = try NestedSway(inside: outer, outputs: 3, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: nested.environment)
        try app.waitForScreens(3)
        for screen in ["WL-2", "WL-3"] {
            #expect(try app.command(["media", "show", "--screen", screen, "--loop", video]).status == 0)
        }
        // Two screens' buffers over the 4 frames, once both have shown more than one frame.
        try waitUntil(timeout: 5, "buffers for both screens") {
            (try Self.media(app, "WL-2")["buffers"] as? Int ?? 0) > 4
        }
        try nested.removeOutput("WL-3")
        try app.waitForLog("screen closed: WL-3")
        try waitUntil(timeout: 5, "WL-3's buffers given back") {
            (try Self.media(app, "WL-2")["buffers"] as? Int ?? 99) <= 4
        }
        let before = try Self.media(app, "WL-2")["framesShown"] as? Int ?? 0
        Thread.sleep(forTimeInterval: 1)
        let after = try Self.media(app, "WL-2")["framesShown"] as? Int ?? 0
        #expect(after - before >= 20, "WL-2 plays on: \(after - before) frames in 1 s")
        #expect(!app.log.contains("protocol error"))
        #expect(app.process.isRunning)
    }

    @Test func aDamagedVideoIsRefusedAndTheScreenKeepsItsPicture() throws {
        let directory = try MediaFixtures.directory()
        let video = try Self.makeVideo(in: directory)
        // The container's index (moov, at the end by default) cut off.
        let broken = directory + "/broken.mp4"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: video))
        try bytes.prefix(bytes.count * 2 / 3).write(to: URL(fileURLWithPath: broken))

        let sway = try HeadlessSway(outputs: 2, width: 640, height: 480)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        let before = try Self.settledMessage(app, on: sway)
        // A cut MP4 is refused by GStreamer, or, when its pipeline neither plays nor fails, by the 4 s read timeout.
        let result = try app.command(["media", "show", "--screen", "HEADLESS-2", "--timeout", "20", broken])
        #expect(result.status == 2, "\(result.output)")
        #expect(result.output.contains(broken), "\(result.output)")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try sway.screenshot("HEADLESS-2").fraction(differingFrom: before) < 0.01)
        #expect(app.process.isRunning)
    }

    /// A video whose decoder is not installed is refused with the missing plugin named, and the screen keeps its
    /// picture. Every H.264 decoder installed (libav's, OpenH264's) is ranked out of decodebin's reach, as on a machine
    /// without them: GStreamer's own missing-plugin message names what is missing.
    @Test func aVideoWhoseDecoderIsMissingIsRefusedNamingIt() throws {
        let video = try Self.makeVideo(in: try MediaFixtures.directory())
        let inspect = try ChildProcess("gst-inspect-1.0", [])
        #expect(try inspect.waitForExit(timeout: 60) == 0)
        // Lines such as "libav:  avdec_h264: libav H.264 / AVC / MPEG-4 AVC / MPEG-4 part 10 decoder".
        let decoders = inspect.standardOutput.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: ":", maxSplits: 2).map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 3, fields[2].contains("264"), fields[2].lowercased().hasSuffix("decoder") else {
                return nil
            }
            return fields[1]
        }
        #expect(decoders.contains("avdec_h264"), "\(decoders)")
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 480)
        let ranks = decoders.map { $0 + ":NONE" }.joined(separator: ",")
        let environment = sway.environment.merging(["GST_PLUGIN_FEATURE_RANK": ranks]) { $1 }
        let app = try MultiscreenProcess(environment: environment)
        try app.waitForScreens(2)
        let before = try Self.settledMessage(app, on: sway)
        let result = try app.command(["media", "show", "--screen", "HEADLESS-2", "--timeout", "20", video])
        #expect(result.status == 2, "\(result.output)")
        #expect(
            result.output.contains("missing GStreamer plugin") && result.output.contains("H.264"), "\(result.output)")
        #expect(app.log.contains("missing GStreamer plugin"), "the refusal logged")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try sway.screenshot("HEADLESS-2").fraction(differingFrom: before) < 0.01)
        let media = try Self.media(app, "HEADLESS-2")
        #expect(media.isEmpty || media["state"] as? String != "playing", "\(media)")
        #expect(app.process.isRunning)
    }
}
