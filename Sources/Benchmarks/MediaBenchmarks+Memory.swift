import Foundation

extension DisplayBenchmarks {
    /// Resident memory of Multiscreen with the card looping on 1, then 2, then 3 external screens (the screens
    /// exist from the start: only the picture is added), per added screen against one decoded frame
    /// (1280 × 720 × 4 bytes). The compositor's growth is reported beside it, without a target: it maps every
    /// `wl_shm` pool it is given.
    func mediaMemoryPerScreen(_ files: MediaFiles) throws -> (results: [BenchmarkResult], perScreen: Double) {
        let instance = try Instance(binary: binary, outputs: 4, width: width, height: height)
        defer { instance.stop() }
        let screens = ["HEADLESS-2", "HEADLESS-3", "HEADLESS-4"]
        var ours: [Double] = []
        var compositor: [Double] = []
        for screen in screens {
            try showMedia(instance, path: files.card, on: [screen])
            Thread.sleep(forTimeInterval: 2)  // the new screen's buffers made and held by the compositor
            let samples = try playingRSS(instance)
            ours.append(samples.app)
            compositor.append(samples.compositor)
        }
        let notSeen = try Self.screensNotSeenPlaying(instance.sway, screens)
        let frameBytes = Double(MediaFiles.width * MediaFiles.height * 4)
        let perScreen = (ours[2] - ours[0]) / 2
        var results: [BenchmarkResult] = []
        for (index, bytes) in ours.enumerated() {
            results.append(
                BenchmarkResult(
                    benchmark: "media-memory", subject: "multiscreen-\(index + 1)-screens", metric: "rss-median",
                    value: bytes / 1_048_576, unit: "MiB", samples: 10))
        }
        results += [
            BenchmarkResult(
                benchmark: "media-memory", subject: "multiscreen", metric: "rss-per-added-screen",
                value: perScreen / 1_048_576, unit: "MiB", samples: 2),
            BenchmarkResult(
                benchmark: "media-memory", subject: "multiscreen", metric: "rss-per-added-screen/frame-bytes",
                value: perScreen / frameBytes, unit: "x", samples: 2),
            BenchmarkResult(
                benchmark: "media-memory", subject: "3-screens", metric: "screens-not-seen-playing",
                value: Double(notSeen), unit: "screens", samples: screens.count),
            BenchmarkResult(
                benchmark: "media-memory", subject: "sway", metric: "rss-per-added-screen",
                value: (compositor[2] - compositor[0]) / 2 / 1_048_576, unit: "MiB", samples: 2),
        ]
        return (results, perScreen / frameBytes)
    }

    /// The median of 10 RSS readings 0.2 s apart of Multiscreen and of its compositor: a video that plays touches
    /// its frames in turn, so one reading may catch a page on its way in.
    func playingRSS(_ instance: Instance) throws -> (app: Double, compositor: Double) {
        var app: [Double] = []
        var compositor: [Double] = []
        for _ in 0..<10 {
            app.append(Double(instance.app.residentSetBytes))
            compositor.append(Self.residentSetBytes(of: instance.sway.pid))
            Thread.sleep(forTimeInterval: 0.2)  // spreads the readings over two seconds of video
        }
        return (SampleStatistics.median(app), SampleStatistics.median(compositor))
    }

    /// `VmRSS` of `/proc/PID/status`, in bytes; NaN when it cannot be read.
    static func residentSetBytes(of pid: pid_t) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Double(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { return .nan }
        return kilobytes * 1024
    }
}
