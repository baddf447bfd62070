import CompositorHarness
import Foundation
import Messaging
import Outputs

/// The benchmarks of issue 26, from the kiosk's own proof of play (`playlist.history`: when the compositor showed each
/// item's first frame on each screen): how far apart the screens of one kiosk, and two kiosks with one clock, show a
/// switch; and what a playlist of pictures costs an idle kiosk in wakeups, against the same kiosk without one.
extension DisplayBenchmarks {
    /// `switches` switches of 1 s items on the 3 external screens of one kiosk and on the external screen of another
    /// (its own sway, the same machine and clock), then `idleSeconds` of 10 s items against none, captures, and the
    /// controller's latency while a 200 MB asset downloads against none, `downloadRounds` times.
    public func playlist(switches: Int, idleSeconds: Double, downloadRounds: Int = 3) throws -> TargetedResults {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ms-playlist-\(UUID().uuidString)"
        )
        .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pictures = try ["red", "green", "blue"].map { try Self.picture($0, in: directory) }

        // Skew: both kiosks play the same items from the same epoch.
        let kiosk = try Instance(binary: binary, outputs: 4, width: width, height: height)
        defer { kiosk.stop() }
        let other = try Instance(binary: binary, outputs: 2, width: width, height: height)
        defer { other.stop() }
        let items = pictures.map { Playlist.Item(source: $0, seconds: 1) }
        for (instance, screens) in [(kiosk, ["HEADLESS-2", "HEADLESS-3", "HEADLESS-4"]), (other, ["HEADLESS-2"])] {
            for screen in screens {
                try Self.request(instance, .setPlaylist(screen: screen, playlist: Playlist(items: items)))
            }
        }
        Thread.sleep(forTimeInterval: Double(switches) + 2)  // the observation window
        let here = try Self.shown(kiosk)
        let there = try Self.shown(other)
        let refresh = 1000.0 / 60  // headless sway's outputs refresh at 60 Hz
        var withinKiosk: [Double] = []
        var betweenKiosks: [Double] = []
        for (start, screens) in here.sorted(by: { $0.key < $1.key }).prefix(switches + 1).dropFirst() {
            guard screens.count == 3 else { continue }
            withinKiosk.append((screens.values.max()! - screens.values.min()!) * 1000)
            if let elsewhere = there[start]?["HEADLESS-2"], let mine = screens["HEADLESS-2"] {
                betweenKiosks.append(abs(elsewhere - mine) * 1000)
            }
        }
        let withinOneRefresh = withinKiosk.filter { $0 <= refresh }.count
        kiosk.stop()
        other.stop()

        // Idle: one kiosk with 10 s items on its external screen, against the same without a playlist.
        let idleWith = try idleWakeups(
            playlist: Playlist(items: pictures.map { .init(source: $0, seconds: 10) }), idleSeconds)
        let idleWithout = try idleWakeups(playlist: nil, idleSeconds)
        let capture = try captureTimes(picture: pictures[0], rounds: 10)
        let download = try assetDownloadLatency(rounds: downloadRounds, messages: 60)

        let p = SampleStatistics.percentile
        let results =
            [
                BenchmarkResult(
                    benchmark: "playlist", subject: "3-screens", metric: "skew-p50", value: p(withinKiosk, 50),
                    unit: "ms",
                    samples: withinKiosk.count),
                BenchmarkResult(
                    benchmark: "playlist", subject: "3-screens", metric: "skew-max", value: withinKiosk.max() ?? .nan,
                    unit: "ms", samples: withinKiosk.count),
                BenchmarkResult(
                    benchmark: "playlist", subject: "3-screens", metric: "switches-within-one-refresh",
                    value: Double(withinOneRefresh), unit: "count", samples: withinKiosk.count),
                BenchmarkResult(
                    benchmark: "playlist", subject: "2-kiosks", metric: "skew-p50", value: p(betweenKiosks, 50),
                    unit: "ms",
                    samples: betweenKiosks.count),
                BenchmarkResult(
                    benchmark: "playlist", subject: "2-kiosks", metric: "skew-p99", value: p(betweenKiosks, 99),
                    unit: "ms",
                    samples: betweenKiosks.count),
                BenchmarkResult(
                    benchmark: "playlist-idle", subject: "10s-pictures", metric: "wakeups-per-second", value: idleWith,
                    unit: "1/s"),
                BenchmarkResult(
                    benchmark: "playlist-idle", subject: "no-playlist", metric: "wakeups-per-second",
                    value: idleWithout,
                    unit: "1/s"),
                BenchmarkResult(
                    benchmark: "capture", subject: "1920x1080-controller", metric: "median",
                    value: p(capture.window, 50),
                    unit: "ms", samples: capture.window.count),
                BenchmarkResult(
                    benchmark: "capture", subject: "1920x1080-picture", metric: "median", value: p(capture.picture, 50),
                    unit: "ms", samples: capture.picture.count),
                BenchmarkResult(
                    benchmark: "capture", subject: "1920x1080-picture", metric: "p95", value: p(capture.picture, 95),
                    unit: "ms", samples: capture.picture.count),
            ] + download.results
        let targets = [
            BenchmarkTarget(
                figure: "switches of one kiosk's 3 screens more than one refresh apart",
                value: Double(withinKiosk.count - withinOneRefresh), unit: "switches", atMost: 0),
            BenchmarkTarget(
                figure: "two kiosks, one clock: switch skew p99", value: p(betweenKiosks, 99), unit: "ms",
                atMost: refresh + 2),
            BenchmarkTarget(
                figure: "idle with 10 s pictures: wakeups per second", value: idleWith, unit: "1/s", atMost: 0.2),
            BenchmarkTarget(
                figure: "capture of a 1920×1080 screen, request → PNG written (p95, both screens)",
                value: p(capture.window + capture.picture, 95), unit: "ms", atMost: 100),
            BenchmarkTarget(
                figure: "controller message → commit p99 while a 200 MB asset downloads / without",
                value: download.ratio,
                unit: "×", atMost: 1.2),
        ]
        return TargetedResults(results: results, targets: targets)
    }

    /// Wakeups per second (voluntary context switches) of a kiosk with 2 screens, its external one playing `playlist`
    /// (none: nothing; its items all as long as the first), over `seconds` (rounded up to whole items) once it has
    /// settled. The window starts and ends halfway through an item, so that it holds whole switches: one whose wakeups
    /// (the timer, then the compositor's frame callback) straddled an edge would count half of them.
    private func idleWakeups(playlist: Playlist?, _ seconds: Double) throws -> Double {
        let instance = try Instance(binary: binary, outputs: 2, width: width, height: height)
        defer { instance.stop() }
        if let playlist { try Self.request(instance, .setPlaylist(screen: "HEADLESS-2", playlist: playlist)) }
        Thread.sleep(forTimeInterval: 2)  // the first item read and shown
        try instance.app.waitUntilQuiet()
        var seconds = seconds
        if let playlist, let item = playlist.items.first?.seconds {
            seconds = (seconds / item).rounded(.up) * item
            let now = Date().timeIntervalSince1970
            let phase = (now - playlist.epoch).truncatingRemainder(dividingBy: item)
            Thread.sleep(forTimeInterval: (item * 1.5 - phase).truncatingRemainder(dividingBy: item))
        }
        let before = try instance.app.activity()
        Thread.sleep(forTimeInterval: seconds)  // the observation window
        let after = try instance.app.activity()
        let woke = after.wakeupsByThread.reduce(0) { $0 + $1.value - (before.wakeupsByThread[$1.key] ?? $1.value) }
        return Double(woke) / seconds
    }

    /// Request → reply (the PNG written) of `screen.capture`, `rounds` times each, on a 1920×1080 controller (drawn
    /// again with GL) and a 1920×1080 screen showing `picture` scaled to fill it (composited on the CPU).
    private func captureTimes(picture: String, rounds: Int) throws -> (window: [Double], picture: [Double]) {
        let instance = try Instance(binary: binary, outputs: 2, width: 1920, height: 1080)
        defer { instance.stop() }
        try Self.request(
            instance, .showMedia(screen: "HEADLESS-2", path: picture, fit: .stretch, rotation: .none, loop: false))
        Thread.sleep(forTimeInterval: 1)
        var times: [String: [Double]] = [:]
        for round in 0..<rounds {
            for screen in ["HEADLESS-1", "HEADLESS-2"] {
                let path = instance.home + "/capture-\(round).png"
                let started = Date()
                try Self.request(instance, .captureScreen(screen: screen, path: path))
                times[screen, default: []].append(Date().timeIntervalSince(started) * 1000)
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        return (times["HEADLESS-1"] ?? [], times["HEADLESS-2"] ?? [])
    }

    /// When each screen first showed each turn, by the turn's start: `[start: [screen: shownAt]]`.
    private static func shown(_ instance: Instance) throws -> [Double: [String: Double]] {
        let reply = try instance.client.exchange(
            line: MessageCodec.encodeRequest(.playlistHistory(screen: nil, limit: Message.mostHistoryRecords)))
        let object = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
        let records = (object?["result"] as? [String: Any])?["records"] as? [[String: Any]] ?? []
        var shown: [Double: [String: Double]] = [:]
        for record in records {
            guard let start = record["start"] as? Double, let screen = record["screen"] as? String,
                let at = record["shownAt"] as? Double
            else { continue }
            shown[start, default: [:]][screen] = at
        }
        return shown
    }

    private static func request(_ instance: Instance, _ message: Message) throws {
        let reply = try instance.client.exchange(line: MessageCodec.encodeRequest(message))
        guard reply.contains("\"result\"") else { throw HarnessError("\(message.method.rawValue) refused: \(reply)") }
    }

    /// A 64×48 picture of one colour, made by ffmpeg.
    private static func picture(_ colour: String, in directory: String) throws -> String {
        let path = "\(directory)/\(colour).png"
        let ffmpeg = try ChildProcess(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=\(colour):s=64x48",
                "-frames:v", "1", path,
            ])
        guard try ffmpeg.waitForExit(timeout: 60) == 0 else {
            throw HarnessError("ffmpeg made no \(path): \(ffmpeg.output)")
        }
        return path
    }
}
