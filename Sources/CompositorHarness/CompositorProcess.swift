import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What every private compositor has: a runtime directory, a process group, a log, and a marker variable by which
/// `stop()` finds the processes it spawned even if they left the process group.
///
/// Public only as the type of ``PrivateCompositor/compositor``; its members are the harness's own.
public final class CompositorProcess: Sendable {
    let name: String
    let directory: RuntimeDirectory
    let process: ChildProcess
    /// `MULTISCREEN_HARNESS_INSTANCE=<unique>`: inherited by everything the compositor starts.
    let marker: String
    let logger: Logger
    let startTime: Double
    private let stopped = Mutex(false)

    static let markerName = "MULTISCREEN_HARNESS_INSTANCE"
    /// Variables that must not leak from our environment into a private compositor or its helpers: they would
    /// point them at the session we run in.
    static let sessionVariables = [
        "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "SWAYSOCK", "I3SOCK", "DISPLAY", "WAYLAND_DEBUG",
    ]

    /// Starts `command` with `environment` laid over a cleaned copy of ours, in `directory`.
    init(
        name: String, directory: RuntimeDirectory, command: [String], environment: [String: String],
        workingDirectory: String? = nil
    ) throws {
        self.name = name
        self.directory = directory
        let marker = "\(Self.markerName)=\(getpid())-\(UUID().uuidString)"
        self.marker = marker
        var variables = ProcessInfo.processInfo.environment
        for variable in Self.sessionVariables { variables[variable] = nil }
        variables.merge(environment) { _, new in new }
        variables["XDG_RUNTIME_DIR"] = directory.path
        variables[Self.markerName] = String(marker.dropFirst(Self.markerName.count + 1))
        var logger = Logger(label: "CompositorHarness.\(name)")
        logger[metadataKey: "runtime"] = "\(directory.path)"
        self.logger = logger
        startTime = monotonicSeconds()
        do {
            process = try ChildProcess(
                command[0], Array(command.dropFirst()), environment: variables, inheritEnvironment: false,
                workingDirectory: workingDirectory)
        } catch {
            directory.remove()
            throw error
        }
        logger.debug("started \(name), pid \(process.pid)")
    }

    deinit {
        stop()
    }

    /// The last lines of the compositor's log.
    func logTail() -> String? {
        process.logTail()
    }

    /// Throws with the log if the compositor has exited.
    func checkAlive() throws {
        if let status = process.exitStatus {
            throw HarnessError("\(name) exited with status \(status)", logTail: logTail())
        }
    }

    /// Waits until `condition` holds, failing at once (with the log) if the compositor dies meanwhile.
    func waitUntil(timeout: Double, _ what: @autoclosure () -> String, _ condition: () throws -> Bool) throws {
        try CompositorHarness.waitUntil(timeout: timeout, "\(what()) (\(name))", logTail: logTail) {
            try checkAlive()
            return try condition()
        }
    }

    /// Waits until the Wayland socket `display` in the runtime directory accepts a connection. The socket file
    /// exists from bind(); until listen() a connection is refused, which is "not ready yet".
    func waitForWaylandSocket(_ display: String, timeout: Double) throws {
        let socket = "\(directory.path)/\(display)"
        try waitUntil(timeout: timeout, "\(name)'s Wayland socket to accept connections") {
            Self.acceptsConnections(socket)
        }
    }

    /// Whether a Unix stream socket at `path` accepts a connection (closed again at once).
    static func acceptsConnections(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }

    /// Seconds since the compositor was spawned.
    var age: Double { monotonicSeconds() - startTime }

    /// Kills the process group, then any process still carrying our marker (started with `setsid`, e.g. by sway's
    /// `exec`), reaps what we can, and removes the runtime directory. Idempotent.
    func stop() {
        let alreadyStopped = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        if alreadyStopped { return }
        process.kill()
        let strays = ProcessTable.processes(withEnvironmentEntry: marker)
        if !strays.isEmpty {
            logger.debug("killing \(strays.count) processes that left the group: \(strays)")
            for pid in strays { Glibc.kill(pid, SIGKILL) }
            // They were adopted by us (we are a subreaper) once their own parent died, so we can reap them.
            try? CompositorHarness.waitUntil(timeout: 2, "stray processes to exit") {
                strays.allSatisfy(Self.isGone)
            }
        }
        directory.remove()
        logger.debug("stopped \(name)")
    }

    /// Reaps `pid` if it is our (adopted) child; true once it no longer exists, or is a zombie we cannot reap
    /// because it is not our child.
    private static func isGone(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { return true }
        let notOurChild = errno == ECHILD
        guard ProcessTable.exists(pid) else { return true }
        return notOurChild && ProcessTable.statFields(pid)?.first == "Z"
    }

    /// Every live process that belongs to this compositor: its group and anything carrying its marker.
    var processIDs: [pid_t] {
        Array(Set(ProcessTable.members(ofGroup: process.pid) + ProcessTable.processes(withEnvironmentEntry: marker)))
            .sorted()
    }
}
