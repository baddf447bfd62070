import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Every process group the harness has started and not yet reaped, so that none outlives the test run.
///
/// Normally each owner (``ChildProcess``, and through it every compositor) kills its group in `stop()`/`deinit`.
/// This registry is the last resort for the cases where that never runs: a test that crashes a precondition, a
/// leaked reference, `exit()` from somewhere else. An `atexit` handler kills whatever is still registered.
enum ProcessRegistry {
    /// Process group IDs (equal to the leader's PID, since each child is spawned into a new group).
    private static let groups = Mutex<Set<pid_t>>([])

    /// Runs once, before the first spawn: installs the `atexit` handler and makes this process a child subreaper.
    ///
    /// Why a subreaper: sway double-forks `swaybg`, so its parent is no longer sway but the nearest subreaper, or
    /// PID 1. On these machines PID 1 (a VM agent, or a container's shell) does not reap adopted children, so they
    /// would stay zombies. As a subreaper we adopt them and reap them when we kill their group.
    private static let installed: Void = {
        atexit { ProcessRegistry.killAllRegistered() }
        setChildSubreaper()
    }()

    static func register(_ group: pid_t) {
        _ = installed
        groups.withLock { _ = $0.insert(group) }
    }

    static func unregister(_ group: pid_t) {
        _ = groups.withLock { $0.remove(group) }
    }

    /// Makes sure the `atexit` handler and the subreaper are in place; call before spawning.
    static func prepare() {
        _ = installed
    }

    /// SIGKILLs every registered group and reaps what it can without blocking for long.
    static func killAllRegistered() {
        let remaining = groups.withLock { groups -> Set<pid_t> in
            defer { groups.removeAll() }
            return groups
        }
        for group in remaining {
            Glibc.kill(-group, SIGKILL)
        }
        let start = monotonicSeconds()
        for group in remaining {
            while monotonicSeconds() - start < 1 {
                var status: Int32 = 0
                let reaped = waitpid(-group, &status, WNOHANG)
                if reaped < 0 { break }  // ECHILD: no more children in this group
                if reaped == 0 { sleepOnePollInterval() }
            }
        }
    }

    /// `prctl(PR_SET_CHILD_SUBREAPER, 1)`.
    ///
    /// `prctl` is variadic in C, so Swift does not import it; calling it through a fixed-arity function pointer is
    /// correct on the Linux ABIs (all arguments are integers in registers).
    private static func setChildSubreaper() {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let symbol = dlsym(nil, "prctl") else { return }
        let prctl = unsafeBitCast(symbol, to: Prctl.self)
        let prSetChildSubreaper: Int32 = 36
        _ = prctl(prSetChildSubreaper, 1, 0, 0, 0)
    }
}

/// Reads of `/proc`, to find the processes of a group and to check that none survived.
enum ProcessTable {
    /// PIDs of all live (or zombie) processes, from the numeric entries of `/proc`.
    static func allPIDs() -> [pid_t] {
        guard let dir = opendir("/proc") else { return [] }
        defer { closedir(dir) }
        var pids: [pid_t] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if let pid = pid_t(name) { pids.append(pid) }
        }
        return pids
    }

    /// The fields of `/proc/PID/stat` after the command name: state, ppid, pgrp, …
    static func statFields(_ pid: pid_t) -> [Substring]? {
        guard let stat = readFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// The process group of `pid`, or nil if it does not exist.
    static func processGroup(of pid: pid_t) -> pid_t? {
        guard let fields = statFields(pid), fields.count > 2 else { return nil }
        return pid_t(fields[2])
    }

    /// Whether `pid` exists, zombie or not: a zombie is a process someone forgot to reap.
    static func exists(_ pid: pid_t) -> Bool {
        access("/proc/\(pid)", F_OK) == 0
    }

    /// All processes whose group is `group`.
    static func members(ofGroup group: pid_t) -> [pid_t] {
        allPIDs().filter { processGroup(of: $0) == group }
    }

    /// All processes whose environment contains `marker` (a `NAME=value` entry).
    ///
    /// The compositors are started with a unique marker variable; everything they spawn inherits it, including
    /// programs that `setsid()` out of our process group (sway's `exec`). That is how `stop()` finds exactly its own
    /// processes and no others.
    static func processes(withEnvironmentEntry marker: String) -> [pid_t] {
        let needle = Array(marker.utf8)
        return allPIDs().filter { pid in
            guard let environ = readBytes("/proc/\(pid)/environ") else { return false }
            return environ.split(separator: 0, omittingEmptySubsequences: true).contains { $0.elementsEqual(needle) }
        }
    }

    static func readFile(_ path: String) -> String? {
        readBytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Reads a whole (small, `/proc`) file with plain syscalls: `/proc` files report size 0, so read until EOF.
    static func readBytes(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            result.append(contentsOf: buffer[..<count])
        }
        return result
    }
}
