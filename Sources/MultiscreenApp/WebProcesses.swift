import Foundation
import Glibc

/// This process's WPE web processes, read from `/proc` (WebKit's API names no process ids).
enum WebProcesses {
    /// The `WPEWebProcess` children, oldest first (by process id, which grows as they are started).
    static func children() -> [Int32] {
        let me = getpid()
        let text = (try? String(contentsOfFile: "/proc/\(me)/task/\(me)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { Int32($0) }.filter { child in
            ((try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8)) ?? "").hasPrefix("WPEWebProcess")
        }.sorted()
    }

    static func isAlive(_ pid: Int32) -> Bool { children().contains(pid) }

    /// `VmRSS` of the process, in MiB.
    static func residentMiB(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return nil }
        return kilobytes / 1024
    }
}
