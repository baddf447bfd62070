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
        try app.waitForScreens(2)
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
        // each screen's latency record 1000 frames; Pango's caches), and the text cache filled. The arena reaches its
        // plateau (about 20 MiB here) only after 2000 to 3000 messages: measured from 1200 on, it still rose by up to
        // 2.4 MiB, then stayed there for 3000 more.
        try send(2700)
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

    /// The text textures are given back once nothing draws them: after `messages clear` nothing is drawn again, so
    /// only the release timer (30 s after the last draw) can free the large texts and the atlas; then the resident
    /// size is back within 10 MiB of where it was before the messages (issue 29 saw 45.8 MB kept for good).
    @Test func textTexturesAreGivenBackAfterMessagesClear() throws {
        let sway = try HeadlessSway(outputs: 2, width: 1280, height: 720)
        defer { sway.stop() }
        let app = try MultiscreenProcess(environment: sway.environment)
        defer { app.process.kill() }
        try app.waitForScreens(2, timeout: 30)
        try app.process.waitUntilQuiet()
        let before = app.process.residentSetBytes
        let client = ControlClient(path: app.home + "/control.sock")
        // Large, distinct messages, each drawn (a texture of its own at this size) before the next one.
        let words = "the quick brown fox jumps over the lazy dog and keeps running across the screen "
        for index in 0..<24 {
            let reply = try client.exchange(
                line: #"{"method": "send", "params": {"text": "\#(index) \#(String(repeating: words, count: 6))"}}"#)
            #expect(reply.contains(#""result""#), "\(reply.prefix(200))")
            try app.process.waitUntilQuiet()
        }
        let cache = (try app.statusResult()["memory"] as? [String: Int])?["textCacheBytes"] ?? 0
        let filled = app.process.residentSetBytes
        #expect(cache > 16 << 20, "the text cache held \(cache) bytes")
        _ = try client.exchange(line: #"{"method": "messages.clear"}"#)
        // Everything but one atlas page (4 MiB, kept for the next draw).
        try waitUntil(timeout: 60, "the text textures given back") {
            let memory = try app.statusResult()["memory"] as? [String: Int]
            return (memory?["textCacheBytes"] ?? .max) <= 4 << 20 && (memory?["textAtlasPages"] ?? .max) <= 1
        }
        let after = app.process.residentSetBytes
        let mib = { (bytes: Int) in (Double(bytes) / 1_048_576 * 10).rounded() / 10 }
        print(
            "text release: RSS \(mib(before)) MiB before, \(mib(filled)) with \(mib(cache)) MiB of texts, \(mib(after)) after"
        )
        #expect(after - before < 10 << 20, "RSS \(mib(before)) → \(mib(after)) MiB after the texts were given back")
    }
}
