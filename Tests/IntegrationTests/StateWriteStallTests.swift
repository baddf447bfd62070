import CompositorHarness
import Foundation
import Testing

/// The state file's write hangs (its `fsync` does not return: a dying SD card, a hung network home), or the proof of
/// play's (its `open` does not). The display thread must go on drawing messages, playing playlists and answering
/// requests meanwhile; the hung write is reported and not piled up behind, and what it held is written whole once the
/// disk is back.
@Suite(.serialized) struct StateWriteStallTests {
    /// Multiscreen on `outputs` headless outputs, its state directory on a ``StallingDirectory``. The caller unmounts
    /// the directory (after the process, which a held `fsync` keeps from ending); on a failure here it is unmounted.
    private static func kiosk(outputs: Int) throws -> (StallingDirectory, HeadlessSway, MultiscreenProcess) {
        let home = MultiscreenProcess.makeHome()
        let disk = try StallingDirectory(at: home + "/state")
        do {
            let sway = try HeadlessSway(outputs: outputs, width: 640, height: 480)
            let app = try MultiscreenProcess(environment: sway.environment, home: home)
            try app.waitForScreens(outputs)
            return (disk, sway, app)
        } catch {
            disk.unmount()
            throw error
        }
    }

    /// Holds the disk's `fsync`s and makes a change: the write it causes hangs.
    private static func hangTheNextWrite(_ disk: StallingDirectory, _ app: MultiscreenProcess) throws {
        disk.stall()
        #expect(try app.command(["send", "before the disk hung"]).status == 0)
        try waitUntil(timeout: 5, "the state write stuck in its fsync") { disk.stalledSyncs == 1 }
    }

    @Test func aHungStateWriteHoldsNothingUpAndTheStateIsWrittenOnceTheDiskIsBack() throws {
        let (disk, sway, app) = try Self.kiosk(outputs: 2)
        // Whatever fails first: a Multiscreen stuck in an fsync can end only once it returns.
        defer { disk.unmount() }
        defer { withExtendedLifetime(sway) {} }
        let before = try app.waitForStatus("the state saved") { status in
            (status["state"] as? [String: Any])?["unsaved"] as? Bool == false
        }
        let savesBefore = try #require((before["state"] as? [String: Any])?["saves"] as? Int)

        try Self.hangTheNextWrite(disk, app)

        // Requests are answered and messages shown while the write hangs.
        try Self.sendWhileTheDiskHangs(5, app)
        try app.waitForLog("latency: message #6 on HEADLESS-2 committed")
        let unsaved = try app.waitForStatus("the state unsaved") { status in
            (status["state"] as? [String: Any])?["unsaved"] as? Bool == true
        }
        #expect((unsaved["state"] as? [String: Any])?["saves"] as? Int == savesBefore, "\(unsaved)")

        // Reported once it has hung for 10 s; no second write piles up behind it.
        try app.waitForLog("has not returned for 10.0 s: the state stays unsaved until it does", timeout: 20)
        #expect(disk.stalledSyncs == 1, "\(disk.process.output)")

        // The disk is back: the hung write ends, and the next one writes every message.
        disk.recover()
        let saved = try app.waitForStatus("the state saved") { status in
            (status["state"] as? [String: Any])?["unsaved"] as? Bool == false
        }
        #expect((saved["state"] as? [String: Any])?["saves"] as? Int == savesBefore + 2, "\(saved)")
        #expect(app.log.contains("the hung write of "), "the end of the hang is logged")
        let file = try String(contentsOfFile: disk.backing + "/multiscreen/state.json", encoding: .utf8)
        #expect(file.contains("while the disk hangs 4"), "\(file)")

        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }

    /// Holds the opens of the proof-of-play log (one that exists: a create would hold the whole directory in the
    /// kernel) and starts a playlist of 1 s items on HEADLESS-2: the write of its first record hangs.
    private static func hangThePlayHistory(_ disk: StallingDirectory, _ app: MultiscreenProcess) throws {
        try FileManager.default.createDirectory(
            atPath: disk.backing + "/multiscreen", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: disk.backing + "/multiscreen/play-history.jsonl", contents: nil)
        let directory = try MediaFixtures.directory()
        let files = try MediaFixtures.pictures(["red", "lime"], in: directory)
        disk.stallOpens(of: "play-history.jsonl")
        let set = try app.command(["playlist", "set", "--screen", "HEADLESS-2"] + files.map { $0 + "@1" })
        #expect(set.status == 0, "\(set.output)")
        try waitUntil(timeout: 10, "the first record's write stuck in its open") { disk.stalledOpens == 1 }
    }

    /// Sends `count` messages, each answered within 2 s.
    private static func sendWhileTheDiskHangs(_ count: Int, _ app: MultiscreenProcess) throws {
        for index in 0..<count {
            let started = Date()
            let sent = try app.command(["send", "while the disk hangs \(index)"])
            #expect(sent.status == 0, "\(sent.output)")
            #expect(Date().timeIntervalSince(started) < 2, "a reply held up by the hung write")
        }
    }

    /// The threads of `app` called `name`.
    private static func threads(_ app: MultiscreenProcess, named name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(app.process.pid)/task")) ?? []
        return tasks.filter {
            (try? String(contentsOfFile: "/proc/\(app.process.pid)/task/\($0)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == name
        }.count
    }

    @Test func aHungPlayHistoryWriteHoldsNothingUpAndItsRecordsAreWrittenOnceTheDiskIsBack() throws {
        let (disk, sway, app) = try Self.kiosk(outputs: 2)
        defer { disk.unmount() }
        defer { withExtendedLifetime(sway) {} }
        try Self.hangThePlayHistory(disk, app)

        // Turns go on, are recorded and can be read back, and requests are answered while the write hangs.
        try Self.sendWhileTheDiskHangs(3, app)
        try app.waitForLog("latency: message #3 on HEADLESS-2 committed")
        var records: [[String: Any]] = []
        try waitUntil(timeout: 15, "four turns recorded while the write hangs") {
            records = try PlaylistHistoryTests.records(app, ["--screen", "HEADLESS-2"])
            return records.count >= 4
        }
        let waiting = try app.waitForStatus("the records in memory unwritten") { status in
            ((status["playHistory"] as? [String: Any])?["unwritten"] as? Int ?? 0) >= records.count
        }
        #expect((waiting["playHistory"] as? [String: Any])?["lost"] as? Int == 0, "\(waiting)")

        // Reported once it has hung for 10 s; no second write piles up behind it.
        try app.waitForLog("has not returned for 10.0 s: the newest plays wait in memory until it does", timeout: 20)
        #expect(disk.stalledOpens == 1, "\(disk.process.output)")
        #expect(Self.threads(app, named: "ms-history") == 1)

        // The disk is back: the hung write ends, and the next one writes every record that waited, each once.
        disk.recover()
        let file = disk.backing + "/multiscreen/play-history.jsonl"
        var lines: [Substring] = []
        try waitUntil(timeout: 10, "the records that waited written") {
            lines = ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n")
            return lines.count >= records.count
        }
        let starts = try lines.map { line in
            let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return try #require(record?["start"] as? Double)
        }
        #expect(Set(starts).count == starts.count, "a record written twice: \(lines)")
        #expect(records.allSatisfy { starts.contains($0["start"] as? Double ?? -1) }, "\(lines)")
        #expect(app.log.contains("the hung write of "), "the end of the hang is logged")

        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }

    /// Asked to stop while the proof of play's write hangs: done within the 10 s a write has, saying how many records
    /// are not written.
    @Test func aHungPlayHistoryWriteDoesNotHoldTheExitUp() throws {
        let (disk, sway, app) = try Self.kiosk(outputs: 2)
        defer { disk.unmount() }
        defer { withExtendedLifetime(sway) {} }
        try Self.hangThePlayHistory(disk, app)

        let asked = Date()
        app.process.signal(SIGTERM)
        try app.waitForLog("the play history's write has not returned within the exit's 10.0 s: the last ", timeout: 15)
        try app.waitForLog("shut down")
        #expect(Date().timeIntervalSince(asked) < 12)
        #expect(app.log.contains("record(s) are not written"), "\(app.log)")
        #expect(disk.stalledOpens == 1, "no second write at exit")
        disk.recover()
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }

    /// Asked to stop while the write hangs: the exit waits for it until 10 s after the exit began, says the last
    /// changes are not saved, and is not held up further by writing again.
    @Test func aHungStateWriteDoesNotHoldTheExitUp() throws {
        let (disk, sway, app) = try Self.kiosk(outputs: 1)
        defer { disk.unmount() }
        defer { withExtendedLifetime(sway) {} }

        try Self.hangTheNextWrite(disk, app)
        #expect(try app.command(["send", "after"]).status == 0)

        let asked = Date()
        app.process.signal(SIGTERM)
        try app.waitForLog(
            "the state file's write has not returned within the exit's 10.0 s: the changes since the last write that returned are not saved",
            timeout: 15)
        try app.waitForLog("shut down")
        #expect(Date().timeIntervalSince(asked) < 12)
        #expect(disk.stalledSyncs == 1, "no second write at exit")
        // The process ends once its hung fsync returns.
        disk.recover()
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }
}
