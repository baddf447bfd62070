import CompositorHarness
import Foundation
import Testing

/// The systemd units in `contrib/systemd` do what their comments say: `systemd-analyze verify` finds no unknown or
/// misplaced key (a `StartLimitIntervalSec` in `[Service]` is ignored with a warning, leaving the default start
/// limit that stops a kiosk for good after five failures), and the limits and restart policy are where systemd
/// reads them.
@Suite struct SystemdUnitsTests {
    private static let units = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("contrib/systemd")

    @Test(arguments: ["multiscreen.service", "multiscreen-kiosk.service"])
    func verifiesClean(unit: String) throws {
        let text = try String(contentsOf: Self.units.appendingPathComponent(unit), encoding: .utf8)
        // verify also checks that ExecStart's program exists: point it at the binary under test.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("units-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent(unit)
        try text.replacingOccurrences(of: "/usr/local/bin/multiscreen", with: MultiscreenProcess.binary)
            .write(to: copy, atomically: true, encoding: .utf8)
        let verify = try ChildProcess("systemd-analyze", ["verify", copy.path])
        let status = try verify.waitForExit(timeout: 30)
        #expect(status == 0, "\(verify.output)")
        #expect(verify.output.isEmpty, "systemd-analyze verify \(unit) complained:\n\(verify.output)")

        let sections = Self.sections(of: text)
        #expect(sections["Unit"]?["StartLimitIntervalSec"] == "0", "\(unit): no start limit, in [Unit]")
        #expect(sections["Service"]?["Restart"] == "always")
        #expect(sections["Service"]?["RestartSec"] != nil)
        #expect(Int(sections["Service"]?["LimitNOFILE"] ?? "") ?? 0 >= 4096)
        #expect(sections["Service"]?["NoNewPrivileges"] == "yes")
        #expect(sections["Service"]?["PrivateTmp"] == "yes")
        #expect(sections["Service"]?["ProtectSystem"] == "full")
    }

    /// Each section's keys and values (the last value of a key repeated).
    private static func sections(of text: String) -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var current = ""
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            if line.hasPrefix("[") && line.hasSuffix("]") {
                current = String(line.dropFirst().dropLast())
            } else if let equals = line.firstIndex(of: "=") {
                sections[current, default: [:]][String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
        }
        return sections
    }
}
