import CompositorHarness
import Foundation
import Testing

/// Issue 25, a decoder that stalls: a video whose file stops giving data part-way (served by a FUSE file system whose
/// reads past a point never return, as a hung network share's) gets no frame for 5 s, is reported stalled, and is read
/// again with a growing delay. GStreamer's source thread stays stuck in `read(2)` and the pipeline cannot be stopped
/// until the share comes back; that must cost neither the other screens' files nor the process's exit, and the file
/// plays again once its reads return.
@Suite(.serialized) struct MediaStallTests {
    /// A 20 s H.264 video made in a new directory, served by a file system whose reads stop a quarter into it (about
    /// 5 s of video). Its index comes first (`faststart`), so that the stall falls in the frames, not in the demuxer's
    /// first read.
    static func stallingVideo() throws -> (directory: String, share: StallingFileSystem) {
        let directory = try MediaFixtures.directory()
        let video = try MediaVideoTests.makeVideo(
            in: directory, seconds: 20, name: "long.mp4",
            codec: ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart"])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: video)[.size] as? Int)
        return (directory, try StallingFileSystem(serving: video, stallAfter: size / 4))
    }

    /// A still picture made in `directory`, and Multiscreen on a headless sway with three outputs.
    static func threeScreens(pictureIn directory: String) throws -> (HeadlessSway, MultiscreenProcess, String) {
        let picture = directory + "/still.png"
        try MediaFixtures.convert(["-size", "320x240", "xc:#3060c0", picture])
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 480)
        let app = try MultiscreenProcess(environment: sway.environment, home: MultiscreenProcess.makeHome())
        try app.waitForScreens(3)
        return (sway, app, picture)
    }

    @Test func aVideoWhoseFileStopsGivingDataIsReportedReadAgainAndHoldsNothingElseUp() throws {
        let (directory, share) = try Self.stallingVideo()
        // Whatever fails first: a Multiscreen stuck in a read can end only once the read returns.
        defer { share.unmount() }
        let (sway, app, picture) = try Self.threeScreens(pictureIn: directory)
        defer { withExtendedLifetime(sway) {} }  // the compositor ends with its last reference

        let shown = try app.command(["media", "show", "--screen", "HEADLESS-2", share.path])
        #expect(shown.status == 0, "\(shown.output)")
        // A quarter of 20 s plays, then no frame comes for 5 s.
        try app.waitForLog("video stalled: no frame for", timeout: 30)
        let failed = try MediaVideoTests.media(app, "HEADLESS-2")
        #expect(failed["state"] as? String == "failed", "\(failed)")
        #expect((failed["error"] as? String)?.hasPrefix("video stalled: no frame for 5") == true, "\(failed)")
        #expect(share.stalledReads >= 1)

        // The stuck pipeline holds nothing up: another file on another screen is read and shown.
        let other = try app.command(["media", "show", "--screen", "HEADLESS-3", picture])
        #expect(other.status == 0, "\(other.output)")
        #expect(try MediaVideoTests.media(app, "HEADLESS-3")["state"] as? String == "showing")

        // Read again after 2 s: its stuck pipeline is left behind, and the file is refused until its read returns.
        try app.waitForLog("could not be stopped within 1.0 s and is left behind", timeout: 10)
        try waitUntil(timeout: 10, "the retry refused while the read hangs") {
            let error = try MediaVideoTests.media(app, "HEADLESS-2")["error"] as? String
            return error?.hasSuffix(": a read of it has not returned for over 1.0 s") == true
        }
        #expect(app.log.components(separatedBy: "video 320x240 playing with").count - 1 == 1, "\(app.log)")

        // The share comes back: the stuck pipeline stops, and the next retry (the delay doubling: 4 s, 8 s) plays the
        // file from its start again.
        share.recover()
        try app.waitForLog("video pipeline left behind stopped at last", timeout: 10)
        try waitUntil(timeout: 20, "the file read again once its read returned") {
            app.log.components(separatedBy: "video 320x240 playing with").count - 1 == 2
        }
        try waitUntil(timeout: 5, "playing again") {
            try MediaVideoTests.media(app, "HEADLESS-2")["state"] as? String == "playing"
        }
        #expect(!app.log.contains("protocol error"))

        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }
}

extension MediaStallTests {
    /// A pipeline stuck in its file's read when Multiscreen is asked to stop: waited for a moment, then left to the
    /// exit, and Multiscreen is done at once. The process itself ends only when the read returns: the kernel waits out
    /// a FUSE read that reached its file system, even for SIGKILL, as it does a hard-mounted NFS share's.
    @Test func aPipelineStuckInItsFilesReadDoesNotHoldUpTheExit() throws {
        let (_, share) = try Self.stallingVideo()
        defer { share.unmount() }
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 480)
        let app = try MultiscreenProcess(environment: sway.environment, home: MultiscreenProcess.makeHome())
        try app.waitForScreens(2)
        #expect(try app.command(["media", "show", "--screen", "HEADLESS-2", share.path]).status == 0)
        try waitUntil(timeout: 20, "a read stalled") { share.stalledReads >= 1 }

        let asked = Date()
        app.process.signal(SIGTERM)
        try app.waitForLog("shut down", timeout: 5)
        #expect(Date().timeIntervalSince(asked) < 5)
        #expect(app.log.contains("video pipelines left to the exit, their files' reads not returned: 1"), "\(app.log)")
        share.recover()
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }
}

extension MediaStallTests {
    /// A short video served by a file system whose very first read never returns: the share hung before anything of
    /// the file was read.
    static func hungVideo() throws -> (directory: String, share: StallingFileSystem) {
        let directory = try MediaFixtures.directory()
        let video = try MediaVideoTests.makeVideo(in: directory, seconds: 2, name: "hung.mp4")
        return (directory, try StallingFileSystem(serving: video, stallAfter: 0))
    }

    /// A file whose first bytes never come is refused when the screen has waited 4 s for it. Meanwhile the reads go
    /// on: another file asked for while the read hangs is shown at once. Once it has hung for 4 s, the file is refused
    /// at once, naming the hung read, until that read returns; then it is read and played.
    @Test func aFileWhoseFirstReadHangsHoldsNothingElseUp() throws {
        let (directory, share) = try Self.hungVideo()
        defer { share.unmount() }
        let (sway, app, picture) = try Self.threeScreens(pictureIn: directory)
        defer { withExtendedLifetime(sway) {} }  // the compositor ends with its last reference

        // Not waited for: the reply comes when the screen gives up on the file, 4 s after the request.
        let hung = try app.command(["media", "show", "--timeout", "0.5", "--screen", "HEADLESS-2", share.path])
        #expect(hung.status == 3, "sent, no reply yet: \(hung.output)")
        try waitUntil(timeout: 5, "the read stalled") { share.stalledReads >= 1 }

        // The reader's thread is free: another file on another screen is read and shown at once. (Its reply waits for
        // the first one's: the control socket answers its requests in order, so it is not waited for either.)
        let other = try app.command(["media", "show", "--timeout", "0.5", "--screen", "HEADLESS-3", picture])
        #expect(other.status == 3, "\(other.output)")
        try app.waitForLog("image 320x240 on HEADLESS-3", timeout: 5)
        try app.waitForLog("media on HEADLESS-2 refused: \(share.path): not readable within 4 s", timeout: 6)
        let log = app.log
        let pictureShown = try #require(log.range(of: "image 320x240 on HEADLESS-3"))
        let hungRefused = try #require(log.range(of: "media on HEADLESS-2 refused"))
        #expect(pictureShown.lowerBound < hungRefused.lowerBound, "the picture shown while the hung read went on")
        #expect(try MediaVideoTests.media(app, "HEADLESS-3")["state"] as? String == "showing")
        // From then on the read counts as hung: the file is refused at once, naming it, and no second thread reads it.
        let started = Date()
        let again = try app.command(["media", "show", "--screen", "HEADLESS-2", share.path])
        #expect(again.status == 2, "\(again.output)")
        #expect(again.output.contains("a read of it has not returned for over 4.0 s"), "\(again.output)")
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(share.stalledReads == 1, "one thread in the hung read, not one per attempt")
        try app.waitForLog("a media read has not returned within 4.0 s", timeout: 2)

        // The share comes back: the read returns, and the file is read and played.
        share.recover()
        try app.waitForLog("a media read that hung has returned", timeout: 10)
        let shown = try app.command(["media", "show", "--screen", "HEADLESS-2", share.path])
        #expect(shown.status == 0, "\(shown.output)")
        try waitUntil(timeout: 10, "playing once its read returned") {
            try MediaVideoTests.media(app, "HEADLESS-2")["state"] as? String == "playing"
        }
        #expect(!app.log.contains("protocol error"))
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }

    /// A read hung on the file's first bytes when Multiscreen is asked to stop: left to the exit, and Multiscreen is
    /// done at once (the process itself ends when the read returns, as in the test above).
    @Test func aReadHungOnItsFirstBytesDoesNotHoldUpTheExit() throws {
        let (_, share) = try Self.hungVideo()
        defer { share.unmount() }
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 480)
        let app = try MultiscreenProcess(environment: sway.environment, home: MultiscreenProcess.makeHome())
        try app.waitForScreens(2)
        #expect(try app.command(["media", "show", "--screen", "HEADLESS-2", share.path]).status == 2)

        let asked = Date()
        app.process.signal(SIGTERM)
        try app.waitForLog("shut down", timeout: 5)
        #expect(Date().timeIntervalSince(asked) < 5)
        #expect(app.log.contains("media reads left to the exit, their files' reads not returned: 1"), "\(app.log)")
        share.recover()
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }
}
