import CompositorHarness
import Foundation
import Remote

#if canImport(Glibc)
    import Glibc
#endif

/// Waits on what a running Multiscreen reports, not on what it logs: its `status` (docs/protocol.md), asked over
/// the control socket until the condition holds. A reworded log line cannot break these, and what they wait for is
/// the behaviour itself: a screen has committed a frame when its `frames.committed` counter says so.
enum StatusWait {
    /// Between two `status` requests: short enough to notice a first frame within a few tens of ms, long enough
    /// that the asking costs the display thread next to nothing.
    static let pollInterval: useconds_t = 20_000

    /// The screens of `status` that have committed a frame (`frames.committed` ≥ 1), by name.
    static func drawnScreens(_ status: [String: Any]) -> [String: [String: Any]] {
        var drawn: [String: [String: Any]] = [:]
        for screen in status["screens"] as? [[String: Any]] ?? [] {
            guard let name = screen["name"] as? String,
                let committed = (screen["frames"] as? [String: Any])?["committed"] as? Int, committed >= 1
            else { continue }
            drawn[name] = screen
        }
        return drawn
    }

    /// Asks `status` at `socket` until `condition` holds for its result and returns that result. On timeout the
    /// error carries the last reply (or why there was none) and the tail of `log`; `exited` ends the wait at once
    /// when the instance is gone.
    @discardableResult
    static func until(
        socket: String, timeout: Double, _ what: String, log: () -> String, exited: () -> Bool = { false },
        _ condition: ([String: Any]) -> Bool
    ) throws -> [String: Any] {
        let start = Date()
        var last = "no reply yet"
        while true {
            let remaining = timeout - Date().timeIntervalSince(start)
            let client = ControlClient(path: socket, timeoutMilliseconds: Int(max(0.1, min(2, remaining)) * 1000))
            do {
                let reply = try client.exchange(line: #"{"method": "status"}"#)
                last = reply
                let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
                if let result = object?["result"] as? [String: Any], condition(result) { return result }
            } catch {
                last = "no reply: \(error)"
            }
            if exited() || remaining <= 0 {
                let why = exited() ? "Multiscreen exited while waiting" : "timed out after \(timeout) s waiting"
                throw HarnessError(
                    "\(why) for \(what) in `status`\n--- last status ---\n\(summary(of: last))",
                    logTail: tail(of: log()))
            }
            usleep(pollInterval)
        }
    }

    /// The last reply for an error: each screen's name and committed frames first (the reply's keys are sorted,
    /// so its screens come late), then the reply itself, cut short.
    private static func summary(of reply: String) -> String {
        let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
        let screens = (object?["result"] as? [String: Any])?["screens"] as? [[String: Any]]
        let lines = (screens ?? []).map { screen in
            let committed = (screen["frames"] as? [String: Any])?["committed"].map { "\($0)" } ?? "none"
            return "\(screen["name"] ?? "?"): frames.committed \(committed), health \(screen["health"] ?? "none")"
        }
        return (screens == nil ? "" : "screens: \(lines.isEmpty ? "none" : lines.joined(separator: "; "))\n")
            + reply.prefix(4000)
    }

    /// The log's last 40 lines, without the control connections this test process made (these waits' own).
    private static func tail(of log: String) -> String {
        let ours = "from pid \(getpid())"
        return log.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !($0.contains("control connection") && $0.hasSuffix(ours)) }.suffix(40).joined(separator: "\n")
    }

    /// Waits until at least `count` screens have committed a frame; returns the drawn screens by name.
    @discardableResult
    static func screens(
        _ count: Int, socket: String, timeout: Double = 10, log: () -> String, exited: () -> Bool = { false }
    ) throws -> [String: [String: Any]] {
        let status = try until(
            socket: socket, timeout: timeout, "\(count) screen(s) with a committed frame", log: log, exited: exited
        ) { drawnScreens($0).count >= count }
        return drawnScreens(status)
    }

    /// Waits until the screen on output `name` has committed a frame; returns its `status` entry.
    @discardableResult
    static func firstFrame(
        on name: String, socket: String, timeout: Double = 10, log: () -> String, exited: () -> Bool = { false }
    ) throws -> [String: Any] {
        let status = try until(
            socket: socket, timeout: timeout, "a committed frame on \(name)", log: log, exited: exited
        ) { drawnScreens($0)[name] != nil }
        return drawnScreens(status)[name] ?? [:]
    }
}

extension MultiscreenProcess {
    /// Waits until at least `count` of this instance's screens have committed a frame (`status`: `frames.committed`
    /// ≥ 1); returns the drawn screens' `status` entries by name.
    @discardableResult
    func waitForScreens(_ count: Int, timeout: Double = 10) throws -> [String: [String: Any]] {
        try StatusWait.screens(
            count, socket: home + "/control.sock", timeout: timeout, log: { log },
            exited: { !process.isRunning })
    }

    /// Waits until `condition` holds for this instance's `status` result; returns that result.
    @discardableResult
    func waitForStatus(_ what: String, timeout: Double = 10, _ condition: ([String: Any]) -> Bool) throws
        -> [String: Any]
    {
        try StatusWait.until(
            socket: home + "/control.sock", timeout: timeout, what, log: { log }, exited: { !process.isRunning },
            condition)
    }

    /// Waits until the screen on output `name` has committed a frame; returns its `status` entry.
    @discardableResult
    func waitForFirstFrame(on name: String, timeout: Double = 10) throws -> [String: Any] {
        try StatusWait.firstFrame(
            on: name, socket: home + "/control.sock", timeout: timeout, log: { log }, exited: { !process.isRunning })
    }
}

extension ChildProcess {
    /// ``MultiscreenProcess/waitForFirstFrame(on:timeout:)`` for a Multiscreen started by hand, whose control
    /// socket is at `socket`.
    @discardableResult
    func waitForFirstFrame(on name: String, socket: String, timeout: Double = 10) throws -> [String: Any] {
        try StatusWait.firstFrame(
            on: name, socket: socket, timeout: timeout, log: { output }, exited: { !isRunning })
    }
}
