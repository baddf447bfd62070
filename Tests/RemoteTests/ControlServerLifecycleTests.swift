import Foundation
import Messaging
import Testing

@testable import Remote

/// The socket file, its permissions, the peer check, start and stop.
@Suite struct ControlServerLifecycleTests {
    @Test func socketIsMode0600EvenWithAPermissiveUmask() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/runtime/multiscreen.sock"
        mkdir(directory.path + "/runtime", 0o755)
        let previous = umask(0)
        defer { umask(previous) }
        let server = try ControlServer(path: path, bus: try MessageBus())
        defer { server.stop() }
        var status = stat()
        #expect(lstat(path, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFSOCK)
        #expect(status.st_mode & 0o7777 == 0o600)
    }

    @Test func missingDirectoryIsCreated0700() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/multiscreen/wayland-1.sock"
        let server = try ControlServer(path: path, bus: try MessageBus())
        defer { server.stop() }
        var status = stat()
        #expect(stat(directory.path + "/multiscreen", &status) == 0)
        #expect(status.st_mode & 0o777 == 0o700)
    }

    @Test func peerWithAnotherUIDIsRejected() throws {
        var options = ControlServer.Options()
        options.allowedUID = geteuid() &+ 1
        let fixture = try ControlFixture(options: options)
        defer { fixture.tearDown() }
        // No request: the refusal comes at accept, and writing after it could race with the close (EPIPE).
        let connection = try fixture.connect()
        guard case .error(let error) = try connection.readResponse() else {
            Issue.record("expected an error")
            return
        }
        #expect(error.message.contains("permission denied"))
        #expect(error.code == .notPermitted, "a refused peer has a code of its own, not 'not a request'")
        #expect(try connection.readLine() == nil)
        #expect(eventually { fixture.server.statistics.peerRejected == 1 })
        #expect(fixture.display.received.isEmpty)
    }

    /// `Options.maximumConnections`: one connection more is answered `busy` and closed; the others are served.
    @Test func connectionBeyondTheMaximumIsRefusedBusy() throws {
        var options = ControlServer.Options()
        options.maximumConnections = 1
        let fixture = try ControlFixture(options: options)
        defer { fixture.tearDown() }
        let first = try fixture.connect()
        #expect(eventually { fixture.server.statistics.connectionsAccepted == 1 })
        let second = try fixture.connect()
        #expect(errorCode(try second.readResponse()) == .busy)
        #expect(try second.readLine() == nil)
        first.request(.send(text: "still served", screen: nil))
        #expect(try first.readResponse() == sent("still served"))
        #expect(fixture.server.statistics.connectionsAccepted == 1)
        #expect(fixture.server.statistics.connectionsRefusedBusy == 1)
        #expect(fixture.server.counters["connectionsRefusedBusy"] == 1)
    }

    @Test func staleSocketIsReplaced() throws {
        let directory = TemporaryDirectory()
        let path = directory.socketPath
        // A socket bound and closed without unlinking: what a crash leaves behind.
        let stale = try ControlSocket.makeSocket(path: path)
        #expect(try ControlSocket.withAddress(path) { bind(stale, $0, $1) } == 0)
        close(stale)
        let bus = try MessageBus()
        let server = try ControlServer(path: path, bus: bus)
        let display = FakeDisplay(bus: bus, server: server)
        defer {
            server.stop()
            display.stop()
        }
        #expect(try ControlClient(path: path).request(.send(text: "x", screen: nil)) == sent("x"))
    }

    @Test func liveSocketIsAnError() throws {
        let fixture = try ControlFixture()
        defer { fixture.tearDown() }
        #expect(throws: ControlError.alreadyListening(path: fixture.path)) {
            try ControlServer(path: fixture.path, bus: try MessageBus())
        }
        #expect(
            ControlError.alreadyListening(path: fixture.path).description
                == "another Multiscreen is listening at \(fixture.path)")
        // The first one is untouched.
        #expect(
            try ControlClient(path: fixture.path).request(.status)
                == .result(method: .status, result: ["ok": .bool(true)]))
    }

    @Test func somethingElseAtThePathIsNotRemoved() throws {
        let directory = TemporaryDirectory()
        let path = directory.socketPath
        #expect(FileManager.default.createFile(atPath: path, contents: Data("keep".utf8)))
        #expect(throws: ControlError.notASocket(path: path)) { try ControlServer(path: path, bus: try MessageBus()) }
        #expect(FileManager.default.contents(atPath: path) == Data("keep".utf8))
    }

    @Test func stopUnlinksJoinsAndIsIdempotent() throws {
        let fixture = try ControlFixture()
        let connection = try fixture.connect()
        connection.request(.status)
        _ = try connection.readResponse()
        fixture.server.stop()
        #expect(access(fixture.path, F_OK) != 0)
        // The thread is gone with the connection it served: the client sees end of stream.
        #expect(try connection.readLine() == nil)
        #expect(throws: ControlError.notListening(path: fixture.path)) {
            try ControlClient(path: fixture.path).request(.status)
        }
        fixture.server.stop()
        fixture.display.stop()
    }

    @Test func defaultPath() throws {
        #expect(try ControlSocket.defaultPath(environment: ["MULTISCREEN_SOCKET": "/x/y.sock"]) == "/x/y.sock")
        #expect(
            try ControlSocket.defaultPath(environment: [
                "XDG_RUNTIME_DIR": "/run/user/5/", "WAYLAND_DISPLAY": "wayland-2",
            ])
                == "/run/user/5/multiscreen/wayland-2.sock")
        #expect(
            try ControlSocket.defaultPath(environment: ["XDG_RUNTIME_DIR": "/r", "WAYLAND_DISPLAY": "/tmp/sway/wl-9"])
                == "/r/multiscreen/wl-9.sock")
        #expect(
            try ControlSocket.defaultPath(environment: ["XDG_RUNTIME_DIR": "/r"]) == "/r/multiscreen/wayland-0.sock")
        #expect(throws: ControlError.noRuntimeDirectory) { try ControlSocket.defaultPath(environment: [:]) }
        // `run --display` names the socket, whatever $WAYLAND_DISPLAY says: two instances on two displays.
        #expect(
            try ControlSocket.defaultPath(
                display: "/run/user/0/wayland-7", environment: ["XDG_RUNTIME_DIR": "/r", "WAYLAND_DISPLAY": "wl-1"])
                == "/r/multiscreen/wayland-7.sock")
    }

    @Test func overlongPathIsAnError() throws {
        let path = "/tmp/" + String(repeating: "p", count: 120)
        #expect(throws: ControlError.pathTooLong(path: path)) { try ControlServer(path: path, bus: try MessageBus()) }
    }
}
