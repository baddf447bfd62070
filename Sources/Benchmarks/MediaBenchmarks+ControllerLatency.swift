import CompositorHarness
import Foundation

extension DisplayBenchmarks {
    /// Controller message → commit on HEADLESS-1 (Multiscreen's own `latency:` log line, as `bench messages`
    /// reads it) with the card looping on HEADLESS-2, 3 and 4 and with nothing playing, alternated on one instance:
    /// each phase's p50 and p99, the ratio of the p99s, and the quiet phase's half/half p99 as the noise to judge it by.
    func mediaControllerLatency(_ files: MediaFiles, rounds: Int, messages: Int) throws -> (
        results: [BenchmarkResult], ratio: Double
    ) {
        let instance = try Instance(binary: binary, outputs: 4, width: width, height: height)
        defer { instance.stop() }
        let externals = ["HEADLESS-2", "HEADLESS-3", "HEADLESS-4"]
        var commits: [Int: Double] = [:]
        var quiet: [Int] = []
        var loaded: [Int] = []
        var notSeen = 0
        for round in 0..<rounds {
            quiet += try Self.controllerCommits(instance, "round \(round)", messages: messages, into: &commits)
            try showMedia(instance, path: files.card, on: externals)
            Thread.sleep(forTimeInterval: 1)  // warm-up, as in the CPU cases
            loaded += try Self.controllerCommits(instance, "round \(round)", messages: messages, into: &commits)
            notSeen += try Self.screensNotSeenPlaying(instance.sway, externals)
            try stopMedia(instance, on: externals)
            mediaLogger.info("media: latency round \(round + 1)/\(rounds) done")
        }
        let results =
            Self.framesUnderLoad(
                benchmark: "media-controller-latency", screen: "HEADLESS-1", commits: ["HEADLESS-1": commits],
                quiet: (name: "none-playing", ids: quiet), loaded: (name: "3-playing", ids: loaded))
            + [
                BenchmarkResult(
                    benchmark: "media-controller-latency", subject: "3-playing", metric: "screens-not-seen-playing",
                    value: Double(notSeen), unit: "screens", samples: rounds * externals.count)
            ]
        let ratio = results.first { $0.metric == "p99-3-playing/none-playing" }?.value ?? .nan
        return (results, ratio)
    }

    /// Sends `messages` messages 20–50 ms apart (not a burst, and not in step with the refresh), each once the one
    /// before was committed on HEADLESS-1, and keeps each one's enqueue → commit milliseconds in `commits`.
    /// - Returns: their ids.
    static func controllerCommits(
        _ instance: Instance, _ label: String, messages: Int, into commits: inout [Int: Double]
    ) throws -> [Int] {
        var ids: [Int] = []
        for index in 0..<messages {
            let id = try instance.send("\(label) probe \(index)")
            var found: (enqueue: Double, drain: Double)?
            try waitUntil(timeout: 10, "message #\(id) committed on HEADLESS-1") {
                found = latencies(in: instance.app.output, id: id, screen: "HEADLESS-1")
                return found != nil
            }
            commits[id] = found!.enqueue
            ids.append(id)
            Thread.sleep(forTimeInterval: Double.random(in: 0.02...0.05))
        }
        return ids
    }
}
