import CompositorHarness
import Foundation
import Glibc
import Remote
import Testing

/// Reliability R10 on a real instance: the state directory on a full disk, then on a read-only one. Never a crash,
/// the error in `status`, the previous good state never destroyed, and what was accepted saved once the disk
/// recovers. Mounts a tiny tmpfs, so it needs root (as CI runs); elsewhere it is listed in Tests/skipped-tests.
@Suite(.serialized) struct BrokenStorageTests {
    @Test(.enabled(if: geteuid() == 0, "mounts a tmpfs: needs root")) func aFullThenReadOnlyDiskLosesNothing() throws {
        let home = MultiscreenProcess.makeHome()
        let stateDirectory = home + "/state"
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        try run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", stateDirectory])
        defer { _ = try? run("/bin/umount", ["-l", stateDirectory]) }
        let statePath = stateDirectory + "/multiscreen/state.json"

        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForScreens(2)
        let client = ControlClient(path: app.home + "/control.sock")
        func status() throws -> String { try client.exchange(line: #"{"method": "status"}"#) }
        func send(_ text: String) throws {
            let reply = try client.exchange(line: #"{"method": "send", "params": {"text": "\#(text)"}}"#)
            #expect(reply.contains("\"result\""), "\(reply)")
        }

        try send("first, saved")
        try waitUntil(timeout: 5, "the first save") { FileManager.default.fileExists(atPath: statePath) }
        let good = try Data(contentsOf: URL(fileURLWithPath: statePath))

        // Full: a filler takes every free block.
        let filler = stateDirectory + "/filler"
        _ = try? run("/bin/dd", ["if=/dev/zero", "of=\(filler)", "bs=4k"])
        try send("second, while the disk is full")
        try waitUntil(timeout: 5, "the failure in status") { try status().contains("No space left on device") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: statePath)) == good, "the previous state is untouched")
        #expect(try status().contains(#""unsaved":true"#))
        #expect(app.process.isRunning)

        // Space again, but read-only: still kept in memory, still reported.
        try FileManager.default.removeItem(atPath: filler)
        try run("/bin/mount", ["-o", "remount,ro", stateDirectory])
        try waitUntil(timeout: 8, "the read-only error in status") { try status().contains("Read-only file system") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: statePath)) == good)

        // Writable again: the next retry saves everything accepted meanwhile.
        try run("/bin/mount", ["-o", "remount,rw", stateDirectory])
        try waitUntil(timeout: 8, "the state saved again") {
            let text = (try? String(contentsOfFile: statePath, encoding: .utf8)) ?? ""
            return text.contains("second, while the disk is full")
        }
        let final = try status()
        #expect(final.contains(#""lastError":null"#) && final.contains(#""unsaved":false"#), "\(final)")
        #expect(app.process.isRunning)
    }

    @discardableResult
    private func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = try ChildProcess(tool, arguments)
        let status = try process.waitForExit(timeout: 20)
        if tool != "/bin/dd" { try #require(status == 0, "\(tool) \(arguments.joined(separator: " "))") }
        return status
    }
}
