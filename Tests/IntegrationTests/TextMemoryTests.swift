import CompositorHarness
import Foundation
import Remote
import Testing

/// Reliability R6's cause, on a real instance in a real compositor: each new message becomes new texts on the
/// screens, and the text cache evicts old ones as it goes. Their pixels must not come and go in the main heap: blocks
/// of many sizes allocated and freed there for months fragment it, and the heap creeps (see `Canvas`).
@Suite(.serialized) struct TextMemoryTests {
    @Test func newMessagesTextsDoNotGrowTheHeap() throws {
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForLogCount("first frame committed on", count: 2)
        let client = ControlClient(path: app.home + "/control.sock")
        var sent = 0
        /// Sends `count` distinct messages, a little apart so that most are drawn (and their texts made) on the way.
        func send(_ count: Int) throws {
            for _ in 0..<count {
                let reply = try client.exchange(
                    line: #"{"method": "send", "params": {"text": "message \#(sent) of the text memory test"}}"#)
                #expect(reply.contains(#""result""#), "\(reply.prefix(200))")
                sent += 1
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        func memory() throws -> [String: Int] {
            try app.process.waitUntilQuiet()
            return try app.statusResult()["memory"] as? [String: Int] ?? [:]
        }

        func arenaMiB(_ memory: [String: Int]) -> Double { Double(memory["heapArenaBytes"] ?? 0) / 1_048_576 }

        let start = try memory()
        // Warm-up: whatever the first messages allocate once, up to its bound (the message log keeps 200 messages,
        // each screen's latency record 1000 frames; Pango's caches), and the text cache filled.
        try send(1200)
        let warm = try memory()
        // Then enough new texts that the text cache turns over many times.
        try send(1500)
        let end = try memory()
        let evicted = (end["textCacheEvicted"] ?? 0) - (warm["textCacheEvicted"] ?? 0)
        for (name, memory) in [("start", start), ("after the warm-up", warm), ("end", end)] {
            let figures = ["heapArenaBytes", "heapInUseBytes", "heapFreeBytes", "heapMappedBytes", "textCacheEvicted"]
                .map { "\($0) \(memory[$0] ?? 0)" }
            print("text memory, \(name): \(figures.joined(separator: ", "))")
        }
        #expect(app.process.isRunning)
        #expect(evicted >= 1000, "the text cache turned over: \(evicted) texts evicted")
        // The cause of the creep: texts' pixels in the heap. Kept there, the cache's tens of megabytes would grow the
        // heap from the start on (and leave holes of every size as they are evicted); kept out of it, the heap grows
        // by the message log and Pango's caches only. The creep itself takes hours to show (the soak's figures).
        #expect(
            arenaMiB(end) - arenaMiB(start) < 8,
            "the heap grew from \(arenaMiB(start)) to \(arenaMiB(end)) MiB while \(evicted) texts were made and evicted"
        )
        #expect(
            arenaMiB(end) - arenaMiB(warm) < 2,
            "the heap grew from \(arenaMiB(warm)) to \(arenaMiB(end)) MiB after the warm-up")
    }
}
