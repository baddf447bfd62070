import Foundation
import Testing

@testable import Screens

/// The proof-of-play log: kept in memory and in a JSON-lines file that rotates at its limit and is read back after a
/// restart, a line cut short by a crash skipped; the lines wait in a bounded queue for their write.
@Suite struct PlayHistoryTests {
    static func record(_ number: Int, screen: String = "HDMI-A-2") -> PlayRecord {
        PlayRecord(
            screen: screen, source: "/srv/\(number).png", index: number % 3, start: Double(number) * 10,
            end: Double(number) * 10 + 10, shownAt: Double(number) * 10 + 0.016,
            lastShownAt: Double(number) * 10 + 0.016, frames: 1)
    }

    static func directory() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("play-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func recordsAreKeptWrittenAndReadBack() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = PlayHistory.path(besideState: directory + "/state.json")
        #expect(path == directory + "/play-history.jsonl")
        var history = PlayHistory(path: path)
        for number in 1...5 { history.append(Self.record(number, screen: number % 2 == 0 ? "DP-1" : "HDMI-A-2")) }
        #expect(!FileManager.default.fileExists(atPath: path), "recorded, not written yet")
        #expect(history.unwrittenCount == 5)
        history.writeUnwritten()
        #expect(history.unwrittenCount == 0)
        #expect(history.newest(2).map(\.source) == ["/srv/4.png", "/srv/5.png"])
        #expect(history.newest(10, screen: "DP-1").map(\.source) == ["/srv/2.png", "/srv/4.png"])
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines.first?.contains(#""source":"/srv/1.png""#) == true, "\(lines)")
        // A crash cut the last line short: the rest is read back, that line skipped.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"screen":"HDMI-A-2","sou"#.utf8))
        try handle.close()
        var restarted = PlayHistory(path: path)
        #expect(restarted.newest(PlayHistory.keptInMemory) == history.newest(PlayHistory.keptInMemory))
        // The next write starts on a line of its own: the cut line does not swallow the first record after it.
        restarted.append(Self.record(6))
        restarted.writeUnwritten()
        var again = PlayHistory(path: path)
        #expect(again.newest(PlayHistory.keptInMemory).map(\.source) == (1...6).map { "/srv/\($0).png" })
        #expect(history.lost == 0 && history.lastError == nil)
    }

    @Test func theFileRotatesAtItsLimitKeepingTheNewest() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/play-history.jsonl"
        var history = PlayHistory(path: path, fileLimit: 1000)
        for number in 1...40 {
            history.append(Self.record(number))
            history.writeUnwritten()
        }
        let current = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let previous = try #require(FileManager.default.attributesOfItem(atPath: path + ".1")[.size] as? Int)
        #expect(current <= 1000 && previous <= 1000)
        #expect(!FileManager.default.fileExists(atPath: path + ".2"))
        var restarted = PlayHistory(path: path, fileLimit: 1000)
        let records = restarted.newest(PlayHistory.keptInMemory)
        #expect(records.last == Self.record(40))
        #expect(records.count < 40 && records.count >= 10, "\(records.count)")
        // In order: the rotated file's lines, then the current one's.
        #expect(records.map(\.start) == records.map(\.start).sorted())
    }

    /// A history past what is kept: the start reads only the newest lines (from both files), a request gets them
    /// in order with the records since, and new records push the oldest read ones out.
    @Test func aLongHistoryKeepsItsNewestLinesInOrder() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/play-history.jsonl"
        let kept = PlayHistory.keptInMemory
        func lines(_ numbers: ClosedRange<Int>) throws -> Data {
            let encoder = JSONEncoder()
            return try numbers.reduce(into: Data()) { data, number in
                data.append(try encoder.encode(Self.record(number)))
                data.append(UInt8(ascii: "\n"))
            }
        }
        // The rotated file ends where the current one begins; the current one holds fewer than are kept, and ends
        // with a line a crash cut short.
        try lines(1...kept).write(to: URL(fileURLWithPath: path + ".1"))
        var current = try lines((kept + 1)...(kept + 300))
        current.append(Data(#"{"screen":"HDMI-A-2","sou"#.utf8))
        try current.write(to: URL(fileURLWithPath: path))
        var history = PlayHistory(path: path)
        history.append(Self.record(kept + 301))
        history.append(Self.record(kept + 302))
        #expect(history.newest(2).map(\.start) == [Self.record(kept + 301).start, Self.record(kept + 302).start])
        let all = history.newest(kept)
        // The cut line took a place among the kept lines and was skipped: the newest kept - 1 records remain.
        #expect(all.count == kept - 1, "\(all.count)")
        #expect(all.map(\.start) == (304...(kept + 302)).map { Self.record($0).start })
        history.append(Self.record(kept + 303))
        history.append(Self.record(kept + 304))
        let after = history.newest(kept)
        #expect(after.count == kept && after.first == Self.record(305), "the oldest record gives way to the newest")
        #expect(after.last == Self.record(kept + 304))
    }

    @Test func aFileThatCannotBeWrittenIsCounted() {
        var history = PlayHistory(path: "/proc/multiscreen-cannot/play-history.jsonl")
        history.append(Self.record(1))
        history.append(Self.record(2))
        history.writeUnwritten()
        #expect(history.lost == 2)
        #expect(history.lastError?.hasPrefix("cannot write the play history: open /proc/") == true, "\(history)")
        #expect(history.newest(10).count == 2)
    }

    /// While a write hangs, the lines recorded meanwhile wait; past the bound the oldest are lost, and counted.
    @Test func linesWaitingForAHungWriteAreBounded() throws {
        var history = PlayHistory(path: Self.directory() + "/play-history.jsonl")
        history.append(Self.record(0))
        let taken = history.takeUnwritten()
        let first = try #require(taken)
        #expect(first.count == 1)
        for number in 1...(PlayHistory.keptInMemory + 5) { history.append(Self.record(number)) }
        #expect(history.unwrittenCount == PlayHistory.keptInMemory + 1, "the queue and the hung write's line")
        #expect(history.lost == 5)
        // The hung write returns: the queue is written in one go, the oldest waiting line first.
        history.written(first.count, failure: nil)
        let queued = history.takeUnwritten()
        let waiting = try #require(queued)
        #expect(waiting.count == PlayHistory.keptInMemory)
        let lines = waiting.lines.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == PlayHistory.keptInMemory)
        #expect(try JSONDecoder().decode(PlayRecord.self, from: lines[0]) == Self.record(6))
        #expect(history.takeUnwritten() == nil, "taken")
        #expect(history.unwrittenCount == PlayHistory.keptInMemory, "until their write ends")
        history.written(waiting.count, failure: nil)
        #expect(history.unwrittenCount == 0)
        #expect(history.lost == 5)
    }
}

extension PlayHistory {
    /// Writes the queued lines on the calling thread, as the application's writer does on its own.
    mutating func writeUnwritten() {
        guard let (lines, count) = takeUnwritten() else { return }
        do {
            try Self.write(lines, to: path, fileLimit: fileLimit)
            written(count, failure: nil)
        } catch {
            written(count, failure: error)
        }
    }
}
