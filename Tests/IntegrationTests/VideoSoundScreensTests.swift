import CompositorHarness
import Foundation
import Outputs
import Testing

/// Issue 25, a video's sound on one screen: Multiscreen on headless sway plays into a PulseAudio server of the test's
/// own, whose null sink records what played. Each video carries a tone of its own (440 Hz, 880 Hz), so the recording
/// says which screen's sound is heard; the picture plays on screen meanwhile.
@Suite(.serialized) struct VideoSoundScreensTests {
    /// A looping 320×240 H.264 test card with a sine of `frequency` Hz as its sound.
    static func videoWithTone(in directory: String, frequency: Int) throws -> String {
        let path = directory + "/tone-\(frequency).mp4"
        try MediaFixtures.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-f", "lavfi", "-i",
            "sine=frequency=\(frequency):sample_rate=48000", "-t", "3", "-c:v", "libx264", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-shortest", path,
        ])
        return path
    }

    /// The tone heard over 1.5 s, in Hz, once one is (within 10 s: a pipeline just switched may take a moment to be
    /// heard); 0 if none was.
    static func toneHeard(_ sound: SoundServer) throws -> Double {
        var heard = try sound.record(seconds: 1.5)
        let deadline = Date().addingTimeInterval(10)
        while heard.loudness < 0.05 && Date() < deadline { heard = try sound.record(seconds: 1.5) }
        #expect(heard.loudness > 0.05, "loudness \(heard.loudness)")
        return heard.toneFrequency
    }

    @Test func oneScreensVideoIsHeardAndTheSoundMovesOnlyWhenReleased() throws {
        let directory = try MediaFixtures.directory()
        let low = try Self.videoWithTone(in: directory, frequency: 440)
        let high = try Self.videoWithTone(in: directory, frequency: 880)
        let sound = try SoundServer()
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 480)
        let app = try MultiscreenProcess(
            environment: sway.environment.merging(sound.environment) { $1 }, home: MultiscreenProcess.makeHome())
        try app.waitForScreens(3)

        // The 440 Hz video with its sound on HEADLESS-2: heard, and `status` says through what.
        let shown = try app.command(["media", "show", "--screen", "HEADLESS-2", "--loop", "--audio", low])
        #expect(shown.status == 0, "\(shown.output)")
        let media = try MediaVideoTests.media(app, "HEADLESS-2")
        #expect(media["audio"] as? Bool == true)
        #expect(media["sound"] as? String == "pulsesink", "\(media)")
        #expect(abs(try Self.toneHeard(sound) - 440) < 10)

        // Another screen may not take the sound while HEADLESS-2 has it; muted, its video plays and is not heard.
        let refused = try app.command(["media", "show", "--screen", "HEADLESS-3", "--loop", "--audio", high])
        #expect(refused.status != 0)
        #expect(refused.output.contains("sound plays on HEADLESS-2 already"), "\(refused.output)")
        let muted = try app.command(["media", "show", "--screen", "HEADLESS-3", "--loop", high])
        #expect(muted.status == 0, "\(muted.output)")
        #expect(try MediaVideoTests.media(app, "HEADLESS-3")["sound"] as? String == "muted")
        #expect(abs(try Self.toneHeard(sound) - 440) < 10)
        let first = try sway.waitForScreenshot("HEADLESS-3", "the video") { $0.fraction(of: RGBColor(hex: 0)) < 0.9 }
        try sway.waitForScreenshot("HEADLESS-3", "a later frame") { $0.fraction(differingFrom: first) > 0.01 }

        // Released on HEADLESS-2, the sound may move: HEADLESS-3's video is played again with it.
        #expect(try app.command(["media", "stop", "--screen", "HEADLESS-2"]).status == 0)
        let moved = try app.command(["media", "show", "--screen", "HEADLESS-3", "--loop", "--audio", high])
        #expect(moved.status == 0, "\(moved.output)")
        #expect(abs(try Self.toneHeard(sound) - 880) < 15)

        // Two screens switched together by one command, the first with its sound: two pipelines (one plays its sound,
        // one does not decode it) on one start of the clock, their first frames within a refresh of each other.
        #expect(try app.command(["media", "stop", "--screen", "HEADLESS-3"]).status == 0)
        let recorder = try sound.startRecording()
        let together = try app.command([
            "media", "show", "--screen", "HEADLESS-2", "--screen", "HEADLESS-3", "--loop", "--audio", low,
        ])
        #expect(together.status == 0, "\(together.output)")
        let shownAt = try VideosStartTogetherTests.shownAt(app, ["HEADLESS-2", "HEADLESS-3"])
        #expect(
            shownAt.max()! - shownAt.min()! <= VideosStartTogetherTests.refresh,
            "first frames shown at \(shownAt)")
        #expect(try MediaVideoTests.media(app, "HEADLESS-2")["sound"] as? String == "pulsesink")
        #expect(try MediaVideoTests.media(app, "HEADLESS-3")["sound"] as? String == "muted")
        // Sound and picture together, within what broadcasters accept (ITU-R BT.1359: sound at most 90 ms ahead of
        // the picture, 185 ms behind); the recording's samples are timed to within 20 ms. The video waited 1.5 s
        // prerolled for the start, which a PulseAudio sink would add to its sound's delay were it not started over.
        let heard = try recorder.stop(after: 1.5)
        let onset = try #require(heard.onset(louderThan: 0.03), "no sound in \(heard)")
        #expect(
            onset - shownAt[0] > -0.09 && onset - shownAt[0] < 0.185,
            "sound began \(onset - shownAt[0]) s after the first frame")
        print(
            "sound began \(onset - shownAt[0]) s after HEADLESS-2's first frame; the screens' first frames: \(shownAt)")
        #expect(abs(try Self.toneHeard(sound) - 440) < 10)

        // The pipeline with sound ends with the process, cleanly.
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0, "\(app.log.suffix(2000))")
    }

    /// Rules asking for sound on two screens: both play the video, the first by name with its sound (the
    /// machine has one output to give), the other muted; and a request for sound elsewhere is refused.
    @Test func aRuleWithSoundOnSeveralScreensGivesItToTheFirst() throws {
        let directory = try MediaFixtures.directory()
        let video = try Self.videoWithTone(in: directory, frequency: 440)
        let sound = try SoundServer()
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            ["HEADLESS-3", "HEADLESS-2"].map { name in
                """
                [[rule]]
                match = { name = "\(name)" }
                role = "external"
                content = "video"
                path = "\(video)"
                loop = true
                audio = true

                """
            }.joined(), home: home)
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 480)
        let app = try MultiscreenProcess(
            environment: sway.environment.merging(sound.environment) { $1 }, home: home)
        try app.waitForScreens(3)
        var sounds: [String?] = []
        try waitUntil(timeout: 10, "both screens playing") {
            sounds = try ["HEADLESS-2", "HEADLESS-3"].map { try MediaVideoTests.media(app, $0)["sound"] as? String }
            return sounds.allSatisfy { $0 != nil }
        }
        #expect(sounds == ["pulsesink", "muted"])
        #expect(abs(try Self.toneHeard(sound) - 440) < 10)
        let refused = try app.command(["media", "show", "--screen", "HEADLESS-3", "--audio", video])
        #expect(refused.status != 0)
        #expect(refused.output.contains("sound plays on HEADLESS-2 already"), "\(refused.output)")
    }
}
