import CompositorHarness
import Foundation
import Glibc
import Testing

/// Multiscreen as a systemd `Type=notify` service: the test plays systemd's notify socket.
@Suite(.serialized) struct ServiceManagerTests {
    /// A datagram socket at a private path, as systemd's `$NOTIFY_SOCKET`.
    final class NotifySocket {
        let path: String
        let descriptor: Int32

        /// - Parameter directory: where the socket goes; `/tmp` for a socket another user must reach (it is then
        ///   writable by everyone, as systemd's is by the unit's processes).
        init(directory: String = FileManager.default.temporaryDirectory.path) throws {
            path = directory + "/notify-\(UUID().uuidString)"
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            try #require(bound == 0, "bind \(path)")
            try #require(chmod(path, 0o777) == 0, "chmod \(path)")
        }

        deinit {
            close(descriptor)
            unlink(path)
        }

        /// The next datagram's text; nil after `timeout` seconds.
        func receive(timeout: Double) -> String? {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(timeout * 1000)) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
        }
    }

    @Test func readyWatchdogAndStoppingAreNotified() throws {
        let notify = try NotifySocket()
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let app = try MultiscreenProcess(
            environment: sway.environment.merging(["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "300000"]) { $1 })
        #expect(notify.receive(timeout: 10) == "READY=1")
        // Opened on demand, for a service manager only (OnDemandLibrariesTests: not loaded without one).
        #expect(app.process.memoryMaps.contains("libsystemd.so"), "libsystemd loaded under a service manager")
        // Pings at half the watchdog interval, from the display thread's loop.
        var pings = 0
        let started = Date()
        while pings < 3, let message = notify.receive(timeout: 2) {
            if message == "WATCHDOG=1" { pings += 1 }
        }
        #expect(pings == 3, "three watchdog pings")
        #expect(Date().timeIntervalSince(started) < 1.5, "about every 0.15 s")
        app.process.signal(SIGTERM)
        var stopping = false
        while let message = notify.receive(timeout: 5) {
            if message == "STOPPING=1" {
                stopping = true
                break
            }
        }
        #expect(stopping)
        #expect(try app.process.waitForExit(timeout: 5) == 0)
    }

    /// The kiosk unit (contrib/systemd/multiscreen-kiosk.service): cage is the main process, so systemd's
    /// `$WATCHDOG_PID` names Multiscreen's parent, and Multiscreen must ping all the same or the kiosk is killed for
    /// silence every `WatchdogSec=`. Here the test process plays cage (it started Multiscreen); a `$WATCHDOG_PID` of
    /// another process gets no pings, only the readiness.
    @Test(arguments: [true, false])
    func theWatchdogIsKeptWhenItsProcessIsTheParent(parent: Bool) throws {
        let notify = try NotifySocket()
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let watchdogPID = parent ? getpid() : 1
        let app = try MultiscreenProcess(
            environment: sway.environment.merging([
                "NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "300000", "WATCHDOG_PID": "\(watchdogPID)",
            ]) { $1 })
        #expect(notify.receive(timeout: 10) == "READY=1")
        var pings = 0
        while pings < 3, let message = notify.receive(timeout: 1) {
            if message == "WATCHDOG=1" { pings += 1 }
        }
        #expect(pings == (parent ? 3 : 0), "pings with WATCHDOG_PID \(parent ? "the parent" : "another process")")
        #expect(app.process.isRunning)
    }

    /// The kiosk unit itself: cage started with systemd's variables, and `$WATCHDOG_PID` naming cage, as systemd names
    /// a unit's main process (a shell that execs Multiscreen sets it to its parent, cage). Multiscreen, cage's client,
    /// reports readiness and keeps the watchdog.
    @Test func theKioskUnitsWatchdogIsKeptUnderCage() throws {
        let notify = try NotifySocket(directory: "/tmp")
        let binary = try CageTests.binaryRunnableByCageUser()
        defer { if binary.isCopy { try? FileManager.default.removeItem(atPath: binary.directory) } }
        let cage = try Cage(
            outputs: 1, application: ["/bin/sh", "-c", "WATCHDOG_PID=$PPID exec \"$0\" run", binary.path],
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "300000"])
        #expect(notify.receive(timeout: 30) == "READY=1", "\(cage.log)")
        var pings = 0
        while pings < 3, let message = notify.receive(timeout: 1) {
            if message == "WATCHDOG=1" { pings += 1 }
        }
        #expect(pings == 3, "three watchdog pings from cage's client: \(cage.log)")
        #expect(cage.isRunning)
    }
}
