import CompositorHarness
import Foundation
import Glibc
import SystemCalls
import Testing

@testable import Media

/// A video's sound, played into a PulseAudio server of the test's own (no sound card: a null sink whose monitor
/// records what played), and the three ways it can go: played, not in the file, no output to play it on. The picture
/// plays in every case. Serialized with each other: `PULSE_SERVER` is this process's own.
@Suite(.serialized) struct VideoSoundTests {
    /// Plays `path` with `audio`, with `PULSE_SERVER` set to `server`, until it started; returns the pipeline (the
    /// caller stops it) and what it said of its sound.
    private func play(_ path: String, audio: Bool, server: String) throws -> (VideoPipeline, VideoSound) {
        setenv("PULSE_SERVER", server, 1)
        defer { unsetenv("PULSE_SERVER") }
        let log = EventLog()
        let pipeline = try VideoPipeline(path: path, loop: true, audio: audio, onEvent: log.handler)
        pipeline.start()
        let started = try #require(log.started, "events \(log.all)")
        #expect(started.width == 320 && started.height == 240)
        return (pipeline, started.sound)
    }

    @Test func aVideosToneIsHeardOnlyWhenAskedFor() throws {
        let sound = try SoundServer()
        let video = try MediaFixtures.h264WithTone(seconds: 2, frequency: 440)
        let server = try #require(sound.environment["PULSE_SERVER"])

        let (playing, reported) = try play(video, audio: true, server: server)
        #expect(reported == .playing(sink: "pulsesink"))
        let heard = try sound.record(seconds: 1.5)
        playing.stop()
        #expect(heard.loudness > 0.05, "loudness \(heard.loudness)")
        #expect(abs(heard.toneFrequency - 440) < 10, "tone \(heard.toneFrequency) Hz")

        let (muted, mutedSound) = try play(video, audio: false, server: server)
        #expect(mutedSound == .muted)
        let silence = try sound.record(seconds: 1)
        muted.stop()
        #expect(silence.loudness < 0.001, "loudness \(silence.loudness)")
    }

    /// A video read ahead of its start waits prerolled, and is reported started (ready) long before it; its sound must
    /// still begin with its first frame, not as late as it waited (what a PulseAudio sink prerolled ahead does).
    @Test func aVideoStartedOnTheClockPlaysItsSoundWithItsFirstFrame() throws {
        let sound = try SoundServer()
        setenv("PULSE_SERVER", try #require(sound.environment["PULSE_SERVER"]), 1)
        defer { unsetenv("PULSE_SERVER") }
        let video = try MediaFixtures.h264WithTone(seconds: 2, frequency: 440)
        let recorder = try sound.startRecording()
        // Longer than the app's 4 s read timeout and the 5 s stall: neither may fire while it waits.
        let start = Date().timeIntervalSince1970 + 6
        let log = EventLog()
        let pipeline = try VideoPipeline(
            path: video, loop: true, audio: true, startOffset: { @Sendable in Date().timeIntervalSince1970 - start },
            onEvent: log.handler)
        defer { pipeline.stop() }
        pipeline.start()
        let started = try #require(log.started, "events \(log.all)")
        #expect(
            Date().timeIntervalSince1970 < start - 4,
            "reported started only \(start - Date().timeIntervalSince1970) s ahead")
        #expect(started.sound == .playing(sink: "pulsesink"))
        var firstFrame: Double?
        let deadline = MonotonicClock.seconds() + 15
        while firstFrame == nil && MonotonicClock.seconds() < deadline {
            var poller = pollfd(fd: pipeline.frameReadyFileDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, 5)
            pipeline.acknowledge()
            if let frame = pipeline.takeFrame() {
                firstFrame = Date().timeIntervalSince1970
                pipeline.release(frame)
            }
        }
        let shown = try #require(firstFrame, "no frame")
        #expect(!log.all.contains { if case .stalled = $0 { true } else { false } }, "events \(log.all)")
        let heard = try recorder.stop(after: 1)
        let onset = try #require(heard.onset(louderThan: 0.03), "no sound in \(heard)")
        #expect(abs(shown - start) < 0.05, "first frame \(shown - start) s after the start")
        #expect(abs(onset - shown) < 0.05, "sound began \(onset - shown) s after the first frame")
        print("first frame \(shown - start) s after the start, sound \(onset - shown) s after the first frame")
    }

    @Test func aVideoWithoutSoundStillPlays() throws {
        let sound = try SoundServer()
        let (pipeline, reported) = try play(
            MediaFixtures.h264(seconds: 2), audio: true, server: try #require(sound.environment["PULSE_SERVER"]))
        defer { pipeline.stop() }
        #expect(reported == .noStream)
    }

    @Test func noAudioOutputLeavesThePicturePlaying() throws {
        let (pipeline, reported) = try play(
            MediaFixtures.h264WithTone(seconds: 2, frequency: 440), audio: true, server: "unix:/nonexistent/pulse")
        defer { pipeline.stop() }
        #expect(reported == .noOutput)
        let deadline = MonotonicClock.seconds() + 2
        var frames = 0
        while MonotonicClock.seconds() < deadline && frames < 10 {
            var poller = pollfd(fd: pipeline.frameReadyFileDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, 50)
            pipeline.acknowledge()
            if let frame = pipeline.takeFrame() {
                frames += 1
                pipeline.release(frame)
            }
        }
        #expect(frames >= 10, "\(frames) frames")
    }
}
