import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How much a running process has run, and which process it is: read from `/proc`, for measurements of a process
/// that must fail, not read zero, when the process they watch has exited or been replaced.
public struct ProcessActivity: Sendable, Equatable {
    /// The process's start time (`/proc/PID/stat` field 22, clock ticks after boot): with the PID, its identity.
    public let startTime: UInt64
    /// What it runs (`/proc/PID/exe`): changes when it calls `exec`.
    public let executable: String
    /// Context switches, voluntary and not, of each thread (`/proc/PID/task/TID/status`): a thread that woke, or one
    /// that spins and is preempted, makes some.
    public let contextSwitchesByThread: [Int32: Int]
    /// Voluntary context switches of each thread: how often it went to sleep, so how often it woke. Unlike the sum
    /// above it does not grow when a busy machine preempts a thread that woke once.
    public let wakeupsByThread: [Int32: Int]

    /// Context switches of all its threads: a process asleep in `poll` makes none.
    public var contextSwitches: Int { contextSwitchesByThread.values.reduce(0, +) }
}

extension ChildProcess {
    /// Reads the process's ``ProcessActivity``.
    /// - Throws: ``HarnessError`` when the process has exited (a zombie included) or `/proc` cannot be read: a
    ///   process that is gone has no activity, rather than none.
    public func activity() throws -> ProcessActivity {
        func notRunning(_ why: String) -> HarnessError {
            HarnessError("\(commandLine) \(why)", logTail: logTail())
        }
        if let status = exitStatus { throw notRunning("has exited (status \(status))") }
        guard let before = ProcessTable.statFields(pid), before.count > 19, let startTime = UInt64(before[19]) else {
            throw notRunning("has no readable /proc/\(pid)/stat")
        }
        guard before[0] != "Z" && before[0] != "X" else { throw notRunning("is a zombie") }
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe") else {
            throw notRunning("has no readable /proc/\(pid)/exe")
        }
        var switches: [Int32: Int] = [:]
        var wakeups: [Int32: Int] = [:]
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        for task in tasks {
            guard let id = Int32(task), let status = ProcessTable.readFile("/proc/\(pid)/task/\(task)/status") else {
                continue  // a thread that ended while we listed them
            }
            func count(_ key: String) -> Int {
                status.split(separator: "\n").first { $0.hasPrefix(key + ":") }
                    .flatMap { Int($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) } ?? 0
            }
            wakeups[id] = count("voluntary_ctxt_switches")
            switches[id] = wakeups[id]! + count("nonvoluntary_ctxt_switches")
        }
        // Read again: the counts above belong to this process only if it was alive throughout.
        guard let after = ProcessTable.statFields(pid), after.count > 19, after[19] == before[19],
            after[0] != "Z" && after[0] != "X", !switches.isEmpty
        else { throw notRunning("exited while its activity was read") }
        return ProcessActivity(
            startTime: startTime, executable: executable, contextSwitchesByThread: switches, wakeupsByThread: wakeups)
    }

    /// The context switches the process makes during the next `seconds`: the observation window of an idle
    /// measurement.
    /// - Throws: ``HarnessError`` when the process has exited, was replaced, or lost a thread: see
    ///   ``contextSwitches(since:)``.
    public func contextSwitches(during seconds: Double) throws -> Int {
        let start = try activity()
        Thread.sleep(forTimeInterval: seconds)  // the observation window itself, not a wait
        return try contextSwitches(since: start)
    }

    /// The context switches the process made since `start` was read (with ``activity()``).
    /// - Throws: ``HarnessError`` when, by now, the process has exited, was replaced (another start time or
    ///   executable: `exec`), or lost a thread (whose switches would silently drop out of the sum).
    public func contextSwitches(since start: ProcessActivity) throws -> Int {
        let end = try activity()
        try Self.checkSameProcess(start, end, commandLine)
        let lost = Set(start.contextSwitchesByThread.keys).subtracting(end.contextSwitchesByThread.keys)
        guard lost.isEmpty else {
            throw HarnessError("\(commandLine): threads \(lost.sorted()) ended; their context switches are lost")
        }
        return end.contextSwitches - start.contextSwitches
    }

    /// Throws unless `end` was read from the same process as `start`: same start time, same executable.
    static func checkSameProcess(_ start: ProcessActivity, _ end: ProcessActivity, _ commandLine: String) throws {
        guard end.startTime == start.startTime else {
            throw HarnessError("\(commandLine): another process has its PID now")
        }
        guard end.executable == start.executable else {
            throw HarnessError("\(commandLine) replaced itself: \(start.executable) → \(end.executable)")
        }
    }

    /// Waits until the process has made no context switch for `quiet` seconds (after start-up, a client still
    /// receives frame callbacks and presentation feedback for a while), at most `timeout` seconds.
    /// - Throws: ``HarnessError`` on timeout, or as soon as the process has exited or was replaced: a process that
    ///   is gone is not quiet.
    public func waitUntilQuiet(for quiet: Double = 0.3, timeout: Double = 5) throws {
        var before = try activity()
        try waitUntil(timeout: timeout, "\(commandLine) to go quiet") {
            Thread.sleep(forTimeInterval: quiet)
            let now = try activity()
            try Self.checkSameProcess(before, now, commandLine)
            defer { before = now }
            // Quiet: the same threads, none of which ran.
            return now.contextSwitchesByThread == before.contextSwitchesByThread
        }
    }
}
