import Foundation
import Glibc
import Synchronization
import SystemCalls
import Testing

@testable import Media

/// The events a pipeline reported, for a test to wait on.
final class EventLog: Sendable {
    private let events = Mutex<[VideoEvent]>([])

    var handler: @Sendable (VideoEvent) -> Void { { [self] event in events.withLock { $0.append(event) } } }
    var all: [VideoEvent] { events.withLock { $0 } }

    /// The first event `match` accepts, waiting up to `seconds`.
    func wait<T>(seconds: Double, _ match: (VideoEvent) -> T?) -> T? {
        let deadline = MonotonicClock.seconds() + seconds
        repeat {
            if let found = all.lazy.compactMap(match).first { return found }
            usleep(20_000)
        } while MonotonicClock.seconds() < deadline
        return nil
    }

    var started: (width: Int, height: Int, decoder: String, sound: VideoSound, position: Double)? {
        wait(seconds: 10) {
            if case .started(let width, let height, let decoder, let sound, let position) = $0 {
                (width, height, decoder, sound, position)
            } else {
                nil
            }
        }
    }
}

/// Real GStreamer pipelines over files ffmpeg made. Frames are taken and released as the display thread would.
/// One at a time: they count frames against the clock and the process's descriptors, on two cores.
@Suite(.serialized) struct VideoPipelineTests {
    /// Takes frames for `seconds`, releasing each at once; returns them in order.
    private func takeFrames(from pipeline: VideoPipeline, for seconds: Double) -> [VideoFrame] {
        var frames: [VideoFrame] = []
        let deadline = MonotonicClock.seconds() + seconds
        while MonotonicClock.seconds() < deadline {
            var poller = pollfd(fd: pipeline.frameReadyFileDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, 50)
            pipeline.acknowledge()
            if let frame = pipeline.takeFrame() {
                frames.append(frame)
                pipeline.release(frame)
            }
        }
        return frames
    }

    private func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    @Test func h264FramesArrive() throws {
        let log = EventLog()
        let pipeline = try VideoPipeline(path: MediaFixtures.h264(seconds: 2), loop: false, onEvent: log.handler)
        defer { pipeline.stop() }
        pipeline.start()
        let started = try #require(log.started)
        #expect(started.width == 320 && started.height == 240)
        #expect(started.decoder.contains("264"), "decoder \(started.decoder)")
        let frames = takeFrames(from: pipeline, for: 1)
        #expect(frames.count >= 10, "\(frames.count) frames in 1 s")
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.number < $1.number })
        let first = try #require(frames.first)
        #expect(first.pixels.width == 320 && first.pixels.height == 240)
        let words = UnsafeBufferPointer(start: first.pixels.words, count: 320 * 240)
        #expect(words.contains { $0 & 0x00FF_FFFF != 0 })
        #expect(pipeline.statistics.decoded >= frames.count)
    }

    @Test func vp9FramesArrive() throws {
        let log = EventLog()
        let pipeline = try VideoPipeline(path: MediaFixtures.vp9(), loop: false, onEvent: log.handler)
        defer { pipeline.stop() }
        pipeline.start()
        let started = try #require(log.started)
        #expect(started.decoder.lowercased().contains("vp9"), "decoder \(started.decoder)")
        #expect(takeFrames(from: pipeline, for: 0.6).count >= 5)
    }

    @Test func endsWithoutLoop() throws {
        let log = EventLog()
        let pipeline = try VideoPipeline(path: MediaFixtures.h264(seconds: 1), loop: false, onEvent: log.handler)
        defer { pipeline.stop() }
        pipeline.start()
        #expect(log.wait(seconds: 4) { if case .ended = $0 { true } else { nil } } == true)
        #expect(pipeline.statistics.shownLoops == 0)
    }

    @Test func loopsSeamlesslyPastTheEnd() throws {
        let log = EventLog()
        let pipeline = try VideoPipeline(path: MediaFixtures.h264(seconds: 1), loop: true, onEvent: log.handler)
        defer { pipeline.stop() }
        pipeline.start()
        _ = try #require(log.started)
        let frames = takeFrames(from: pipeline, for: 2.8)
        #expect(pipeline.statistics.shownLoops >= 1)
        // Frames keep coming in the last half second: the clip is 1 s long.
        let late = takeFrames(from: pipeline, for: 0.5)
        #expect(late.count >= 5, "\(late.count) frames in the last 0.5 s")
        // The presentation time went back to the start at least once.
        #expect(zip(frames, frames.dropFirst()).contains { $1.presentationTime < $0.presentationTime })
        #expect(!log.all.contains { if case .ended = $0 { true } else if case .error = $0 { true } else { false } })
    }

    /// A pipeline told the clock is `offset` s into the video (nil: no clock), its frames taken from the moment it is
    /// started: the position it reports, the presentation time of the first frame it delivered, and how far the
    /// newest frame after `seconds` of playing is from where the clock is then (positive: ahead).
    private func startAt(
        _ offset: Double?, path: String, length: Double, loop: Bool, playing seconds: Double = 1
    ) throws -> (position: Double, first: Double, drift: Double) {
        let log = EventLog()
        let clockRead = Mutex<Double?>(nil)
        var startOffset: (@Sendable () -> Double)?
        if let offset {
            startOffset = {
                clockRead.withLock { $0 = MonotonicClock.seconds() }
                return offset
            }
        }
        let pipeline = try VideoPipeline(path: path, loop: loop, startOffset: startOffset, onEvent: log.handler)
        defer { pipeline.stop() }
        pipeline.start()
        var first: VideoFrame?
        var newest: (frame: VideoFrame, at: Double)?
        var deadline = MonotonicClock.seconds() + 10
        while MonotonicClock.seconds() < deadline {
            var poller = pollfd(fd: pipeline.frameReadyFileDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, 50)
            pipeline.acknowledge()
            if let frame = pipeline.takeFrame() {
                if first == nil {
                    first = frame
                    deadline = MonotonicClock.seconds() + seconds
                }
                newest = (frame, MonotonicClock.seconds())
                pipeline.release(frame)
            }
        }
        let started = try #require(log.started, "events \(log.all)")
        let firstTaken = try #require(first)
        let last = try #require(newest)
        // Frames delivered before the first one taken were superseded: the clips run at 30 frames a second.
        let firstDelivered = Double(firstTaken.presentationTime) / 1e9 - Double(firstTaken.number - 1) / 30
        var expected = (offset ?? 0) + (last.at - (clockRead.withLock { $0 } ?? last.at))
        if loop { expected = expected.truncatingRemainder(dividingBy: length) }
        return (started.position, firstDelivered, Double(last.frame.presentationTime) / 1e9 - expected)
    }

    /// Where the clock says, not at 0: the accurate seek decodes from the keyframe at 0 (ffmpeg's 5 s clip has no
    /// other) up to the frame 3 s in, and the time that took is made up, so the frames then keep to the clock. Times
    /// are the video's own, counted from its first frame (x264's B-frames put that at 2 frames, 0.067 s).
    @Test func startsWhereTheClockSays() throws {
        let path = try MediaFixtures.h264(seconds: 5)
        let clipStart = try startAt(nil, path: path, length: 5, loop: false, playing: 0.1).first
        let start = try startAt(3, path: path, length: 5, loop: false)
        let first = start.first - clipStart
        let drift = start.drift - clipStart
        print("told 3 s: at \(start.position) s, first frame \(first) s in, \(drift) s off after 1 s")
        #expect(abs(start.position - 3) < 0.001)
        #expect(abs(first - 3) < 0.04, "first frame \(first) s in")
        #expect(abs(drift) < 0.1, "the newest frame is \(drift) s off the clock")
    }

    /// Looping, the clock's offset wraps around the video's length: 12 s into a 5 s clip is 2 s in.
    @Test func aLoopingVideoWrapsTheClocksOffset() throws {
        let path = try MediaFixtures.h264(seconds: 5)
        let clipStart = try startAt(nil, path: path, length: 5, loop: true, playing: 0.1).first
        let start = try startAt(12, path: path, length: 5, loop: true)
        let first = start.first - clipStart
        let drift = start.drift - clipStart
        print("told 12 s of a 5 s loop: at \(start.position) s, first frame \(first) s in, \(drift) s off after 1 s")
        #expect(abs(start.position - 2) < 0.001)
        #expect(abs(first - 2) < 0.04, "first frame \(first) s in")
        #expect(abs(drift) < 0.1, "the newest frame is \(drift) s off the clock")
    }

    /// Within the first quarter second, and before the start, it plays from the beginning without a seek; past the
    /// end of a video that does not loop, it shows the last frame and ends.
    @Test func nearTheBeginningOrPastTheEndOfAVideoThatEnds() throws {
        let path = try MediaFixtures.h264(seconds: 1)
        for offset in [0.1, -4] {
            let start = try startAt(offset, path: path, length: 1, loop: false, playing: 0.1)
            #expect(start.position == 0 && start.first < 0.1, "offset \(offset): \(start)")
        }
        let log = EventLog()
        let pipeline = try VideoPipeline(path: path, loop: false, startOffset: { 30 }, onEvent: log.handler)
        defer { pipeline.stop() }
        pipeline.start()
        let started = try #require(log.started)
        #expect(started.position > 0.8 && started.position < 1, "\(started.position)")
        #expect(log.wait(seconds: 4) { if case .ended = $0 { true } else { nil } } == true)
        let frame = try #require(pipeline.takeFrame())
        #expect(frame.presentationTime > 800_000_000, "last frame at \(frame.presentationTime) ns")
    }

    /// A broken index is an error, almost always at once. Once in a CI run (none in 25 runs of the suite here) GStreamer
    /// waited instead, neither playing nor failing: the pipeline then reports a stall, which ends the file's turn as a
    /// failure too. Either way it never hangs unreported.
    @Test func brokenMoovIsAnErrorOrAStall() throws {
        let log = EventLog()
        let pipeline = try VideoPipeline(path: MediaFixtures.brokenMoov(), loop: false, onEvent: log.handler)
        defer { pipeline.stop() }
        pipeline.start()
        let failure = log.wait(seconds: 10) { event -> VideoEvent? in
            switch event {
            case .error, .stalled: event
            default: nil
            }
        }
        switch failure {
        case .error(.corrupt), .error(.unsupported), .stalled: break
        default:
            Issue.record(
                "expected corrupt, unsupported or a stall, got \(String(describing: failure)); events \(log.all)")
        }
    }

    @Test func notAVideoIsUnsupported() throws {
        let log = EventLog()
        let pipeline = try VideoPipeline(path: MediaFixtures.textFile(), loop: true, onEvent: log.handler)
        defer { pipeline.stop() }
        pipeline.start()
        let error = log.wait(seconds: 10) { if case .error(let error) = $0 { error } else { nil } }
        guard case .unsupported = error else {
            Issue.record("expected unsupported, got \(String(describing: error)); events \(log.all)")
            return
        }
    }

    @Test func missingFilesAreRefusedAtOnce() {
        #expect(throws: MediaError.notFound(path: "/nonexistent/v.mp4")) {
            try VideoPipeline(path: "/nonexistent/v.mp4", loop: false) { _ in }
        }
    }

    @Test func stopTwiceAndBeforeStart() throws {
        let pipeline = try VideoPipeline(path: MediaFixtures.h264(seconds: 1), loop: true) { _ in }
        pipeline.stop()
        pipeline.stop()
        pipeline.start()  // after stop: nothing
        #expect(pipeline.takeFrame() == nil)
        let playing = try VideoPipeline(path: MediaFixtures.h264(seconds: 1), loop: false) { _ in }
        playing.start()
        _ = takeFrames(from: playing, for: 0.3)
        playing.stop()
        playing.stop()
    }

    @Test func descriptorsComeBackAfterTwentyCycles() throws {
        let path = try MediaFixtures.h264(seconds: 1)
        // One cycle first: GStreamer's process-wide state (registry, thread pools) is made once.
        try VideoPipeline(path: path, loop: true) { _ in }.stop()
        let baseline = openDescriptors()
        for _ in 0..<20 {
            let log = EventLog()
            let pipeline = try VideoPipeline(path: path, loop: true, onEvent: log.handler)
            pipeline.start()
            _ = log.started
            _ = takeFrames(from: pipeline, for: 0.05)
            pipeline.stop()
        }
        // Other suites run meanwhile and open files of their own for a moment: a leak is what stays.
        let deadline = MonotonicClock.seconds() + 5
        var now = openDescriptors()
        while now > baseline && MonotonicClock.seconds() < deadline {
            usleep(100_000)
            now = openDescriptors()
        }
        #expect(now <= baseline)
    }

    @Test func aFrameHeldAcrossStopStaysValid() throws {
        let log = EventLog()
        let pipeline = try VideoPipeline(path: MediaFixtures.h264(seconds: 2), loop: false, onEvent: log.handler)
        pipeline.start()
        _ = try #require(log.started)
        var held: VideoFrame?
        let deadline = MonotonicClock.seconds() + 2
        while held == nil && MonotonicClock.seconds() < deadline {
            held = pipeline.takeFrame()
            usleep(10_000)
        }
        let frame = try #require(held)
        pipeline.stop()
        // The display thread may still show it: its memory stays until it is released.
        #expect(frame.pixels.words[0] == frame.pixels.words[0])
        pipeline.release(frame)
        pipeline.release(frame)
    }
}
