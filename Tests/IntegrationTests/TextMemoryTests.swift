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

        // Warm-up: whatever the first messages allocate once (the message log, Pango's caches, the first texts).
        try send(300)
        let warm = try memory()
        // Then enough new texts that the text cache turns over many times.
        try send(1500)
        let end = try memory()
        let evicted = (end["textCacheEvicted"] ?? 0) - (warm["textCacheEvicted"] ?? 0)
        let grownMiB = Double((end["heapArenaBytes"] ?? 0) - (warm["heapArenaBytes"] ?? 0)) / 1_048_576
        print("text memory: \(sent) messages, after the warm-up \(warm), at the end \(end)")
        #expect(app.process.isRunning)
        #expect(evicted >= 1000, "the text cache turned over: \(evicted) texts evicted")
        // Texts made from the heap would have grown it by tens of megabytes (the cache's 32 MiB budget, plus the
        // holes left between them); their storage elsewhere leaves the heap as it was, within Pango's noise.
        #expect(grownMiB < 2, "the heap grew \(grownMiB) MiB while \(evicted) texts were made and evicted")
    }
}
