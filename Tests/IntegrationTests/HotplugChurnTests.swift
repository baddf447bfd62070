import CompositorHarness
import Foundation
import Testing

/// Reliability R1: outputs of a nested sway added and removed at random, 0-500 ms apart.
@Suite(.serialized) struct HotplugChurnTests {
    /// 50 cycles (`MULTISCREEN_CHURN_CYCLES` for the long tier): after every change each live output has exactly one
    /// Multiscreen window, drawn within 1 s of the change (the output's first frame committed, or its screen closed);
    /// no protocol error, no disconnect; fds the same after as before; RSS growth printed.
    @Test func outputsAddedAndRemovedAtRandomKeepOneWindowPerOutput() throws {
        let cycles = Int(ProcessInfo.processInfo.environment["MULTISCREEN_CHURN_CYCLES"] ?? "") ?? 50
        let outer = try HeadlessSway(outputs: 1, width: 1600, height: 900)
        let nested = try NestedSway(inside: outer, outputs: 1, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: nested.environment)
        try app.waitForFirstFrame(on: "WL-1")
        var generator = SystemRandomNumberGenerator()

        /// A removal's effect in the log within a second; returns how long it took.
        func waitForEffect(_ text: String, occurrence: Int, since change: Date) throws -> Double {
            try waitUntil(timeout: 10, "'\(text)' #\(occurrence)") {
                app.log.components(separatedBy: text).count - 1 >= occurrence
            }
            return Date().timeIntervalSince(change)
        }
        var live = ["WL-1"]
        var closed: [String: Int] = [:]
        var slowest = 0.0
        func add() throws {
            let name = try nested.createOutput()
            let change = Date()
            // The output's screen is new (a removed output's screen is forgotten): its first committed frame.
            try app.waitForFirstFrame(on: name)
            slowest = max(slowest, Date().timeIntervalSince(change))
            live.append(name)
        }
        func remove(_ name: String) throws {
            try nested.removeOutput(name)
            let change = Date()
            closed[name, default: 0] += 1
            slowest = max(
                slowest, try waitForEffect("screen closed: \(name)", occurrence: closed[name]!, since: change))
            live.removeAll { $0 == name }
        }
        func checkWindows(_ cycle: Int) throws {
            let windows = try nested.windows().filter { $0.title?.hasPrefix("Multiscreen") == true }
            for output in live {
                #expect(windows.filter { $0.output == output }.count == 1, "cycle \(cycle): windows \(windows)")
            }
            #expect(windows.count == live.count, "cycle \(cycle): \(windows.count) windows for \(live)")
        }

        // Warm-up: one cycle, so lazily made resources exist before fds and memory are counted.
        try add()
        try remove(live.last!)
        let fdsBefore = app.process.openFileDescriptorCount
        let rssBefore = app.process.residentSetBytes
        let memoryBefore = (try app.statusResult()["memory"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
        for cycle in 0..<cycles {
            // Keep between 1 and 3 outputs: add when there is room and a coin says so, otherwise remove one.
            if live.count == 1 || (live.count < 3 && Bool.random(using: &generator)) {
                try add()
                try remove(live.randomElement(using: &generator)!)
            } else {
                try remove(live.randomElement(using: &generator)!)
                try add()
            }
            try checkWindows(cycle)
            usleep(UInt32.random(in: 0...500_000, using: &generator))
            #expect(app.process.isRunning, "cycle \(cycle)")
        }
        // Back to one output, as at the start, before counting.
        while live.count > 1 { try remove(live.last!) }
        try app.process.waitUntilQuiet()
        let fdsAfter = app.process.openFileDescriptorCount
        let rssAfter = app.process.residentSetBytes
        print(
            "R1 churn: \(cycles) cycles, slowest change → window \(Int(slowest * 1000)) ms, fds \(fdsBefore) → "
                + "\(fdsAfter), RSS \(rssBefore / 1024) → \(rssAfter / 1024) KiB "
                + "(\((rssAfter - rssBefore) / 1024) KiB)")
        // Where memory went (the heap's live and free bytes, the text cache, …), to tell a leak from a cache filling.
        let memoryAfter = (try app.statusResult()["memory"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
        for key in memoryAfter.keys.sorted() {
            print("R1 churn: memory \(key) \(memoryBefore[key].map(String.init) ?? "?") → \(memoryAfter[key]!)")
        }
        #expect(slowest < 1.0, "every change shown within 1 s: slowest \(slowest) s")
        #expect(fdsAfter == fdsBefore, "fds \(fdsBefore) → \(fdsAfter)")
        #expect(!app.log.contains("protocol error"))
        #expect(!app.log.contains("lost the connection"))
        #expect(app.process.isRunning)
    }
}
