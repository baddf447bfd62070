import CompositorHarness
import Foundation

extension DisplayBenchmarks {
    /// The two different videos, looping, on HEADLESS-2 and HEADLESS-3 for `seconds`: frames dropped against
    /// frames decoded, and frames shown against 30 a second, summed over both, from `status`.
    func mediaDroppedFrames(_ files: MediaFiles, seconds: Double) throws -> (
        results: [BenchmarkResult], droppedPercent: Double, missingPercent: Double
    ) {
        let instance = try Instance(binary: binary, outputs: 3, width: width, height: height)
        defer { instance.stop() }
        let played = [("a", files.card, "HEADLESS-2"), ("b", files.other, "HEADLESS-3")]
        for (_, path, screen) in played { try showMedia(instance, path: path, on: [screen]) }
        Thread.sleep(forTimeInterval: 1)  // warm-up, as in the CPU cases
        let before = try played.map { try Self.mediaVitals(instance, $0.2) }
        let start = Date()
        Thread.sleep(forTimeInterval: seconds)  // the measured window itself
        let after = try played.map { try Self.mediaVitals(instance, $0.2) }
        let elapsed = Date().timeIntervalSince(start)
        let notSeen = try Self.screensNotSeenPlaying(instance.sway, played.map(\.2))
        func delta(_ key: String, _ index: Int) -> Double {
            Double((after[index][key] as? Int ?? 0) - (before[index][key] as? Int ?? 0))
        }
        var results: [BenchmarkResult] = []
        let expected = MediaFiles.framesPerSecond * elapsed
        for (index, (name, _, screen)) in played.enumerated() {
            guard after[index]["state"] as? String == "playing" else {
                throw HarnessError("\(name) on \(screen) is not playing: \(after[index])")
            }
            let decoder = after[index]["decoder"] as? String ?? "?"
            for key in ["framesDecoded", "framesDropped", "framesShown", "loops"] {
                results.append(
                    BenchmarkResult(
                        benchmark: "media-frames", subject: "\(name).mp4 on \(screen) by \(decoder)", metric: key,
                        value: delta(key, index), unit: key == "loops" ? "loops" : "frames"))
            }
        }
        let decoded = played.indices.map { delta("framesDecoded", $0) }.reduce(0, +)
        let dropped = played.indices.map { delta("framesDropped", $0) }.reduce(0, +)
        let shown = played.indices.map { delta("framesShown", $0) }.reduce(0, +)
        let droppedPercent = decoded > 0 ? 100 * dropped / decoded : .nan
        let missingPercent = 100 * max(0, 2 * expected - shown) / (2 * expected)
        results += [
            BenchmarkResult(
                benchmark: "media-frames", subject: "both", metric: "expected-frames-each", value: expected,
                unit: "frames"),
            BenchmarkResult(
                benchmark: "media-frames", subject: "both", metric: "screens-not-seen-playing", value: Double(notSeen),
                unit: "screens", samples: played.count),
            BenchmarkResult(
                benchmark: "media-frames", subject: "both", metric: "dropped/decoded", value: droppedPercent, unit: "%",
                samples: Int(decoded)),
            BenchmarkResult(
                benchmark: "media-frames", subject: "both", metric: "not-shown/expected", value: missingPercent,
                unit: "%", samples: Int(2 * expected)),
        ]
        return (results, droppedPercent, missingPercent)
    }
}
