import CompositorHarness
import Foundation

/// `bench media`'s CPU cases: CPU per second of video against the reference player, and on three screens against
/// one.
extension DisplayBenchmarks {
    /// One measured window of a player: the CPU seconds of its process and of its compositor, and the frames it put
    /// on screen, over `seconds` of video.
    struct PlayedWindow {
        var process: Double
        var compositor: Double
        var frames: Double
        var seconds: Double
        /// Screens on which the video was not seen moving after the window (``screensNotSeenPlaying``).
        var notSeenPlaying = 0

        /// CPU seconds of process and compositor together per second of video.
        var cpuPerSecond: Double { (process + compositor) / seconds }

        /// Measures `window` seconds: `frames` is read at both ends (a counter of frames shown).
        static func measure(process: pid_t, compositor: pid_t, window: Double, frames: () throws -> Int) throws
            -> PlayedWindow
        {
            let framesBefore = try frames()
            let before = (cpuSeconds(pid: process), cpuSeconds(pid: compositor))
            let start = Date()
            Thread.sleep(forTimeInterval: window)  // the measured window itself
            let after = (cpuSeconds(pid: process), cpuSeconds(pid: compositor))
            let elapsed = Date().timeIntervalSince(start)
            return PlayedWindow(
                process: after.0 - before.0, compositor: after.1 - before.1,
                frames: Double(try frames() - framesBefore),
                seconds: elapsed)
        }
    }

    /// Each subject's median CPU per second of video (all, its process's share, its compositor's), frames per
    /// second, and the spread of its rounds (the largest over the smallest: the noise a ratio is judged by).
    static func cpuResults(benchmark: String, _ windows: [(subject: String, windows: [PlayedWindow])])
        -> [BenchmarkResult]
    {
        var results: [BenchmarkResult] = []
        for (subject, windows) in windows {
            let total = windows.map(\.cpuPerSecond)
            for (metric, values, unit) in [
                ("cpu-per-video-second-median", total, "s/s"),
                ("process-cpu-per-video-second-median", windows.map { $0.process / $0.seconds }, "s/s"),
                ("compositor-cpu-per-video-second-median", windows.map { $0.compositor / $0.seconds }, "s/s"),
                ("frames-shown-per-second-median", windows.map { $0.frames / $0.seconds }, "1/s"),
            ] {
                results.append(
                    BenchmarkResult(
                        benchmark: benchmark, subject: subject, metric: metric, value: SampleStatistics.median(values),
                        unit: unit, samples: values.count))
            }
            results.append(
                BenchmarkResult(
                    benchmark: benchmark, subject: subject, metric: "screens-not-seen-playing",
                    value: Double(windows.map(\.notSeenPlaying).reduce(0, +)), unit: "screens",
                    samples: windows.count))
            results.append(
                BenchmarkResult(
                    benchmark: benchmark, subject: subject, metric: "cpu-per-video-second-max/min",
                    value: (total.max() ?? .nan) / (total.min() ?? .nan), unit: "x", samples: total.count))
        }
        return results
    }

    /// CPU seconds per second of video of Multiscreen (process + compositor) playing the card with `--loop` on
    /// HEADLESS-2, its controller idle on HEADLESS-1, against `gst-launch-1.0 … ! waylandsink` (process +
    /// compositor) playing it in a window filling HEADLESS-1 of a sway of the same two outputs without Multiscreen;
    /// the two alternate, each round a fresh start of the video.
    ///
    /// The reference's waylandsink sits in `fpsdisplaysink` (no text overlay), which counts the frames it rendered:
    /// a reference that skipped frames would be cheap for the wrong reason.
    func mediaCPUAgainstReference(_ files: MediaFiles, window: Double, rounds: Int) throws -> (
        results: [BenchmarkResult], ratio: Double
    ) {
        let instance = try Instance(binary: binary, outputs: 2, width: width, height: height)
        defer { instance.stop() }
        // No border: the one tiled window is the whole output, as Multiscreen's fullscreen window is (waylandsink
        // 1.22 fails with `fullscreen=true` on sway: "Window has no size set").
        let referenceSway = try HeadlessSway(
            outputs: 2, width: width, height: height, extraConfig: "default_border none")
        defer { referenceSway.stop() }
        var ours: [PlayedWindow] = []
        var theirs: [PlayedWindow] = []
        var theirsDropped = 0
        for round in 0..<rounds {
            ours.append(try playWindow(instance, path: files.card, on: ["HEADLESS-2"], window: window))

            let player = try ChildProcess(
                "gst-launch-1.0",
                [
                    "-v", "filesrc", "location=\(files.card)", "!", "decodebin", "!", "videoconvert", "!",
                    "fpsdisplaysink", "text-overlay=false", "video-sink=waylandsink",
                ], environment: referenceSway.environment)
            defer { player.kill() }
            _ = try player.waitForLine(containing: "rendered: ", timeout: 30)
            Thread.sleep(forTimeInterval: 1)  // the same warm-up as Multiscreen's
            let droppedBefore = Self.fpsCounts(in: player.output).dropped
            var played = try PlayedWindow.measure(process: player.pid, compositor: referenceSway.pid, window: window) {
                Self.fpsCounts(in: player.output).rendered
            }
            played.notSeenPlaying = try Self.screensNotSeenPlaying(referenceSway, ["HEADLESS-1"])
            theirs.append(played)
            guard player.isRunning else { throw HarnessError("gst-launch-1.0 ended: \(player.output)") }
            theirsDropped += Self.fpsCounts(in: player.output).dropped - droppedBefore
            player.kill()
            mediaLogger.info("media: reference round \(round + 1)/\(rounds) done")
        }
        let ratio =
            SampleStatistics.median(ours.map(\.cpuPerSecond)) / SampleStatistics.median(theirs.map(\.cpuPerSecond))
        let benchmark = "media-cpu"
        return (
            Self.cpuResults(
                benchmark: benchmark, [("multiscreen-1-screen", ours), ("gst-launch-waylandsink", theirs)]) + [
                    BenchmarkResult(
                        benchmark: benchmark, subject: "gst-launch-waylandsink", metric: "frames-dropped-in-windows",
                        value: Double(theirsDropped), unit: "frames", samples: rounds),
                    BenchmarkResult(
                        benchmark: benchmark, subject: "multiscreen-1-screen/gst-launch-waylandsink",
                        metric: "ratio-of-medians", value: ratio, unit: "x", samples: rounds),
                ], ratio
        )
    }

    /// CPU seconds per second of video of Multiscreen (process + compositor) with the card on HEADLESS-2 alone and
    /// on HEADLESS-2, 3 and 4, alternated on one instance: decoded once, shown three times.
    func mediaCPUThreeScreensAgainstOne(_ files: MediaFiles, window: Double, rounds: Int) throws -> (
        results: [BenchmarkResult], ratio: Double
    ) {
        let instance = try Instance(binary: binary, outputs: 4, width: width, height: height)
        defer { instance.stop() }
        var one: [PlayedWindow] = []
        var three: [PlayedWindow] = []
        for round in 0..<rounds {
            one.append(try playWindow(instance, path: files.card, on: ["HEADLESS-2"], window: window))
            three.append(
                try playWindow(
                    instance, path: files.card, on: ["HEADLESS-2", "HEADLESS-3", "HEADLESS-4"], window: window))
            mediaLogger.info("media: screens round \(round + 1)/\(rounds) done")
        }
        let ratio =
            SampleStatistics.median(three.map(\.cpuPerSecond)) / SampleStatistics.median(one.map(\.cpuPerSecond))
        return (
            Self.cpuResults(
                benchmark: "media-screens", [("multiscreen-1-screen", one), ("multiscreen-3-screens", three)])
                + [
                    BenchmarkResult(
                        benchmark: "media-screens", subject: "multiscreen-3-screens/multiscreen-1-screen",
                        metric: "ratio-of-medians", value: ratio, unit: "x", samples: rounds)
                ], ratio
        )
    }

    /// Shows `path` with `--loop` on `screens`, waits a second, and measures Multiscreen and its compositor over
    /// `window` seconds (the frames: `framesShown` of the first screen, one count for every screen of the video);
    /// then stops it everywhere and waits for its pipeline to stop, so that the next round starts from nothing.
    func playWindow(_ instance: Instance, path: String, on screens: [String], window: Double) throws -> PlayedWindow {
        try showMedia(instance, path: path, on: screens)
        Thread.sleep(forTimeInterval: 1)  // warm-up: the pipeline's first frames and the compositor's first buffers
        var played = try PlayedWindow.measure(process: instance.app.pid, compositor: instance.sway.pid, window: window)
        {
            let vitals = try Self.mediaVitals(instance, screens[0])
            guard vitals["state"] as? String == "playing" else {
                throw HarnessError("\(path) is not playing on \(screens[0]): \(vitals)")
            }
            return vitals["framesShown"] as? Int ?? 0
        }
        played.notSeenPlaying = try Self.screensNotSeenPlaying(instance.sway, screens)
        try stopMedia(instance, on: screens)
        return played
    }

    /// The last `last-message = rendered: 16, dropped: 0, …` of `fpsdisplaysink` in `gst-launch-1.0 -v`'s output.
    static func fpsCounts(in output: String) -> (rendered: Int, dropped: Int) {
        guard let line = output.split(separator: "\n").last(where: { $0.contains("rendered: ") }) else { return (0, 0) }
        func number(after label: String) -> Int {
            guard let range = line.range(of: label) else { return 0 }
            return Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        return (number(after: "rendered: "), number(after: "dropped: "))
    }
}
