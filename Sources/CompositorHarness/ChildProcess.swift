import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A process the harness started, in its own process group, whose output is captured line by line.
///
/// Ownership: this object owns the process group. ``kill()`` (also run by `deinit`) SIGTERMs the whole group,
/// SIGKILLs it after a grace period, and reaps every member, so a compositor and the helpers it forks (sway's
/// `swaybg`, weston's `weston-desktop-shell`) die together and leave no zombies. The group is also registered with
/// an `atexit` handler as a last resort.
///
/// Output is read on a background thread from the moment of spawning, so a chatty child never blocks on a full
/// pipe, and ``waitForLine(containing:timeout:)`` can search everything printed so far.
public final class ChildProcess: Sendable {
    /// How stdout is kept: as text lines (searchable, merged with stderr in ``output``) or as raw bytes (for binary
    /// output such as `grim … -`).
    public enum StandardOutputMode: Sendable {
        case lines
        case bytes
    }

    /// The process ID, which is also its process group ID.
    public let pid: pid_t
    /// The resolved executable path and the arguments, for messages.
    public let commandLine: String

    private let capture: OutputCapture
    private let wakeup: WakeupPipe
    private let lifecycle = Mutex(Lifecycle())
    private let logger: Logger

    private struct Lifecycle {
        /// Exit status once reaped: the exit code, or 128 + signal number.
        var exitStatus: Int32?
        /// The whole group has been killed and reaped.
        var groupGone = false
    }

    /// Starts `executable` with `arguments`.
    /// - Parameters:
    ///   - executable: A path, or a name looked up in `PATH`.
    ///   - environment: Variables to set. With `inheritEnvironment` they are laid over this process's environment.
    ///   - inheritEnvironment: Start from this process's environment (default) or from nothing.
    ///   - workingDirectory: The child's current directory; this process's when nil.
    ///   - standardOutput: Keep stdout as lines (default) or as bytes.
    ///   - keptLines: How many of the newest output lines are kept (a test that reads a whole long trace asks for
    ///     more than the default).
    /// - Throws: ``HarnessError`` when the executable is missing or `posix_spawn` fails.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        inheritEnvironment: Bool = true, workingDirectory: String? = nil,
        standardOutput: StandardOutputMode = .lines, keptLines: Int = 50_000
    ) throws {
        let path = try Executables.resolve(executable)
        var logger = Logger(label: "CompositorHarness.\((path as NSString).lastPathComponent)")
        var variables = inheritEnvironment ? ProcessInfo.processInfo.environment : [:]
        // A child is never the service a service manager supervises, even when this process is one: it must not
        // report readiness or keep the watchdog in its place (a Multiscreen under test would, and would load
        // libsystemd for it). Set explicitly, as the service tests do, they stay.
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { variables[name] = nil }
        variables.merge(environment) { _, new in new }

        ProcessRegistry.prepare()
        // The wakeup pipe closes itself; the other two are closed here if anything below throws.
        let wakeup = try WakeupPipe()
        let (stdoutRead, stdoutWrite) = try makePipe()
        let stderrPipe: (readEnd: Int32, writeEnd: Int32)
        do {
            stderrPipe = try makePipe()
        } catch {
            close(stdoutRead)
            close(stdoutWrite)
            throw error
        }
        let (stderrRead, stderrWrite) = stderrPipe
        defer {
            close(stdoutWrite)
            close(stderrWrite)
        }

        let pid: pid_t
        do {
            pid = try Self.spawn(
                path: path, arguments: arguments, environment: variables, workingDirectory: workingDirectory,
                standardOutput: stdoutWrite, standardError: stderrWrite)
        } catch {
            close(stdoutRead)
            close(stderrRead)
            throw error
        }
        ProcessRegistry.register(pid)
        logger[metadataKey: "pid"] = "\(pid)"
        self.pid = pid
        self.commandLine = ([path] + arguments).joined(separator: " ")
        self.logger = logger
        self.wakeup = wakeup
        let capture = OutputCapture(
            keepsStandardOutputBytes: standardOutput == .bytes, maximumLines: keptLines, logger: logger)
        self.capture = capture
        let thread = Thread {
            capture.readUntilEndOfFile(
                standardOutput: stdoutRead, standardError: stderrRead, wakeup: wakeup.readEnd)
        }
        thread.name = "output of \(pid)"
        thread.start()
        logger.debug("started \(commandLine)")
    }

    deinit {
        kill()
    }

    /// Everything captured so far from stdout (in `.lines` mode) and stderr, in arrival order.
    public var output: String { capture.text { _ in true } }

    /// How many complete lines have been captured so far: a mark for ``output(after:)``.
    public var linesCaptured: Int { capture.linesCaptured }

    /// The complete lines captured after the first `mark` (from ``linesCaptured``): a stretch of a long log that
    /// stays right when older lines are no longer kept, and costs only its own length to read.
    public func output(after mark: Int) -> String { capture.completeLines(after: mark) }

    /// Captured stderr only.
    public var standardError: String { capture.text { $0.isStandardError } }

    /// Captured stdout as text.
    public var standardOutput: String {
        capture.keepsStandardOutputBytes
            ? String(decoding: standardOutputBytes, as: UTF8.self) : capture.text { !$0.isStandardError }
    }

    /// Captured stdout bytes (`.bytes` mode only; empty otherwise).
    public var standardOutputBytes: [UInt8] { capture.state.withLock { $0.standardOutputBytes } }

    /// Captured stdout bytes and when each read of them arrived (`.bytes` mode only): how many bytes had arrived, and
    /// when on the wall clock (seconds since 1970).
    public var timedStandardOutput: (bytes: [UInt8], arrivals: [(end: Int, at: Double)]) {
        capture.state.withLock { ($0.standardOutputBytes, $0.standardOutputArrivals) }
    }

    /// Waits until a line containing `needle` has been printed on stdout or stderr (lines already seen count).
    /// - Returns: The whole line.
    /// - Throws: ``HarnessError`` on timeout, or as soon as the output ends without such a line.
    @discardableResult
    public func waitForLine(containing needle: String, timeout: Double) throws -> String {
        var found: String?
        try waitUntil(timeout: timeout, "a line containing \"\(needle)\" from \(commandLine)", logTail: logTail) {
            let (line, finished) = capture.firstLine(containing: needle)
            found = line
            if line == nil && finished {
                throw HarnessError(
                    "\(commandLine) closed its output (status \(exitStatus.map(String.init) ?? "unknown")) "
                        + "without printing \"\(needle)\"", logTail: logTail())
            }
            return line != nil
        }
        return found!
    }

    /// The exit status if the process has exited (reaping it), else nil. 128 + n means killed by signal n.
    public var exitStatus: Int32? {
        lifecycle.withLock { state in
            Self.reapLeader(pid, &state)
            // Once the leader is reaped, notice as soon as the group is empty: from then on its ID may be reused by
            // an unrelated process group, which we must never signal.
            if state.exitStatus != nil && !state.groupGone { _ = Self.groupIsGone(pid, &state) }
            return state.exitStatus
        }
    }

    /// Whether the process (the group leader) is still running.
    public var isRunning: Bool { exitStatus == nil }

    /// Waits for the process to exit and for its output to be read to the end.
    /// - Returns: The exit code, or 128 + signal number.
    /// - Throws: ``HarnessError`` if it is still running after `timeout` seconds (it is left running).
    @discardableResult
    public func waitForExit(timeout: Double) throws -> Int32 {
        let start = monotonicSeconds()
        var status: Int32?
        try waitUntil(timeout: timeout, "\(commandLine) to exit", logTail: logTail) {
            status = exitStatus
            return status != nil
        }
        // The output may still be in the pipe; it ends when the last writer (the child, or a helper it forked and
        // left running) closes it.
        let remaining = max(0.5, timeout - (monotonicSeconds() - start))
        try? waitUntil(timeout: remaining, "the output of \(commandLine) to end") {
            capture.state.withLock { $0.finished }
        }
        return status!
    }

    /// Sends `signal` to the process itself (not its group), e.g. `SIGTERM` to test a graceful shutdown.
    public func signal(_ signal: Int32) {
        lifecycle.withLock { state in
            Self.reapLeader(pid, &state)
            if state.exitStatus == nil { Glibc.kill(pid, signal) }
        }
    }

    /// Sends `signal` to every process in the group.
    private func signalGroup(_ signal: Int32) {
        lifecycle.withLock { state in
            if !Self.groupIsGone(pid, &state) { Glibc.kill(-pid, signal) }
        }
    }

    /// Kills the whole process group and reaps it: SIGTERM, then SIGKILL after a second. Idempotent.
    ///
    /// When it returns, no process of the group exists any more, not even as a zombie (as far as we are allowed to
    /// reap: members we are parent or subreaper of).
    public func kill() {
        if !lifecycle.withLock({ Self.groupIsGone(pid, &$0) }) {
            signalGroup(SIGTERM)
            if !waitForGroupToVanish(timeout: 1) {
                logger.debug("group \(pid) ignored SIGTERM, sending SIGKILL")
                signalGroup(SIGKILL)
                if !waitForGroupToVanish(timeout: 5) {
                    logger.warning("process group \(pid) still has members after SIGKILL: \(remainingMembers)")
                }
            }
        }
        wakeup.wake()
    }

    /// Members of the process group that still exist, for the warning when a group survives SIGKILL.
    private var remainingMembers: [pid_t] { ProcessTable.members(ofGroup: pid) }

    /// The number of open file descriptors of the process (`/proc/PID/fd`), for leak checks.
    public var openFileDescriptorCount: Int {
        guard let dir = opendir("/proc/\(pid)/fd") else { return 0 }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
            if !isDot { count += 1 }
        }
        return count
    }

    /// The whole of `/proc/PID/maps` (every mapping, with the path of each mapped file), empty when gone. Read to its
    /// end: Foundation's `String(contentsOfFile:)` stops after the first 4 KiB of a `/proc` file, which reports size 0.
    public var memoryMaps: String { ProcessTable.readFile("/proc/\(pid)/maps") ?? "" }

    /// The resident set size in bytes (`VmRSS` in `/proc/PID/status`), 0 when gone.
    public var residentSetBytes: Int {
        guard let status = ProcessTable.readFile("/proc/\(pid)/status") else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2, let kilobytes = Int(fields[1].trimmingCharacters(in: .whitespaces)) {
                return kilobytes * 1024
            }
        }
        return 0
    }

    /// Resident bytes per mapping (`Rss` of each entry of `/proc/PID/smaps`, summed by what is mapped: a file's
    /// path, `[heap]`, `[stack]`, or `[anon]` for anonymous memory), empty when gone. Tells what RSS growth is:
    /// heap, other anonymous memory (a library's own allocator, thread stacks), shared buffers, or pages of files
    /// (fonts, caches) read as they are first touched.
    public var residentBytesByMapping: [String: Int] {
        guard let smaps = ProcessTable.readFile("/proc/\(pid)/smaps") else { return [:] }
        var resident: [String: Int] = [:]
        var mapping = "[anon]"
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.contains("-"), first.first?.isHexDigit == true {
                // A mapping's header: address range, permissions, offset, device, inode, then the path if any.
                let path = fields.count > 5 ? fields[5].trimmingCharacters(in: .whitespaces) : ""
                mapping = path.isEmpty ? "[anon]" : path.replacingOccurrences(of: " (deleted)", with: "")
            } else if first == "Rss:", fields.count >= 2, let kilobytes = Int(fields[1]) {
                resident[mapping, default: 0] += kilobytes * 1024
            }
        }
        return resident
    }

    /// The last 40 lines of output, for error messages.
    public func logTail() -> String? {
        let text = output
        return text.isEmpty ? nil : text.lastLines(40)
    }

    // MARK: - Reaping

    private func waitForGroupToVanish(timeout: Double) -> Bool {
        (try? waitUntil(timeout: timeout, "") { lifecycle.withLock { Self.groupIsGone(pid, &$0) } }) != nil
    }

    /// Reaps whatever members of the group have exited and reports whether the group is empty.
    ///
    /// `kill(-group, 0)` succeeds while any member exists, zombies included, so ESRCH means every member is gone
    /// and reaped.
    private static func groupIsGone(_ group: pid_t, _ state: inout Lifecycle) -> Bool {
        if state.groupGone { return true }
        while true {
            var status: Int32 = 0
            let reaped = waitpid(-group, &status, WNOHANG)
            if reaped <= 0 { break }
            if reaped == group { state.exitStatus = decode(status) }
        }
        reapLeader(group, &state)
        // Only after the leader is reaped: until then its PID, and so the group ID, cannot be reused.
        if state.exitStatus != nil && Glibc.kill(-group, 0) == -1 && errno == ESRCH {
            state.groupGone = true
            ProcessRegistry.unregister(group)
        }
        return state.groupGone
    }

    private static func reapLeader(_ pid: pid_t, _ state: inout Lifecycle) {
        guard state.exitStatus == nil else { return }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { state.exitStatus = decode(status) }
    }

    /// The C macros `WIFEXITED`/`WEXITSTATUS`/`WTERMSIG` are not imported; this is their Linux definition.
    private static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    // MARK: - Spawning

    /// `posix_spawn` into a new process group, with stdin on /dev/null, stdout and stderr on our pipes, default
    /// signal dispositions and no other inherited descriptors.
    private static func spawn(
        path: String, arguments: [String], environment: [String: String], workingDirectory: String?,
        standardOutput: Int32, standardError: Int32
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        if let workingDirectory {
            guard let addChdir = GNUExtensions.addChdir else {
                throw HarnessError("this C library lacks posix_spawn_file_actions_addchdir_np (glibc >= 2.29 needed)")
            }
            _ = addChdir(&actions, workingDirectory)
        }
        // Descriptors of this process that are not close-on-exec (other libraries', the test runner's) must not
        // leak into compositors: they would skew fd counts and keep pipes open.
        _ = GNUExtensions.addCloseFrom?(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A new process group (pgid = pid) so the whole tree can be signalled at once; an empty signal mask and
        // default handlers for signals a test runner may ignore or block (ignored signals survive exec).
        let flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        posix_spawnattr_setflags(&attributes, Int16(flags))
        posix_spawnattr_setpgroup(&attributes, 0)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for string in argv + envp { free(string) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw HarnessError("posix_spawn \(path) failed: \(String(cString: strerror(result)))")
        }
        return pid
    }
}
