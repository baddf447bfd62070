import CompositorHarness
import Foundation
import Glibc

/// A man in the middle between Multiscreen and a real compositor, for what no compositor here does on demand: it
/// forwards the Wayland stream both ways (file descriptors included, with `SCM_RIGHTS`), and can hide a global from
/// the registry or inject a `wl_display.error` event at a message boundary.
///
/// Written in Python (Debian's `/usr/bin/python3`, which has `socket.send_fds`), run as a child process: a few lines
/// that only move bytes, so the product under test keeps talking to a real sway.
final class WaylandProxy {
    let process: ChildProcess
    /// The proxy's socket: what Multiscreen gets as `WAYLAND_DISPLAY` (an absolute path).
    let path: String
    private let directory: String

    /// - Parameters:
    ///   - upstream: the compositor's socket path.
    ///   - hiding: a global interface never announced to the client (`xdg_wm_base`), or nil.
    init(upstream: String, hiding: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ms-proxy-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        path = directory + "/proxy-0"
        let script = directory + "/proxy.py"
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        process = try ChildProcess("/usr/bin/python3", [script, path, upstream, hiding ?? ""], environment: [:])
        try process.waitForLine(containing: "listening", timeout: 10)
    }

    deinit {
        process.kill()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Injects `wl_display.error(object, code, message)` about the client's object bound to global `interface`, at
    /// the next message boundary towards the client (at once if the stream is between messages), and waits until
    /// the proxy has sent it. - Returns: that object's id.
    ///
    /// The object is one the client bound: libwayland reports an error about `wl_display` itself as a fatal error
    /// with an errno (`EINVAL`), and one about an id the client destroyed (Mesa's own registry, id 2 here) with no
    /// object at all; object ids depend on the order of the client's requests, so the proxy reads them off `bind`.
    @discardableResult
    func injectProtocolError(
        on interface: String, code: UInt32, message: String = "injected by the test's proxy"
    ) throws -> UInt32 {
        let bound = try process.waitForLine(containing: "bound \(interface) as ", timeout: 10)
        guard let id = bound.split(separator: " ").last.flatMap({ UInt32($0) }) else {
            throw HarnessError("the proxy's line \(bound) names no object id")
        }
        try "\(id) \(code) \(message)".write(toFile: directory + "/inject", atomically: true, encoding: .utf8)
        process.signal(SIGUSR1)
        try process.waitForLine(containing: "injected", timeout: 10)
        return id
    }

    private static let script = #"""
        import os, select, signal, socket, struct, sys

        listen_path, upstream_path, hidden = sys.argv[1], sys.argv[2], sys.argv[3].encode()
        inject_file = os.path.join(os.path.dirname(listen_path), "inject")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(listen_path)
        server.listen(1)
        print("listening", flush=True)
        client, _ = server.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(upstream_path)
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.signal(signal.SIGUSR1, lambda *_: os.write(wake_w, b"x"))
        pending = b""  # compositor -> client bytes not yet forwarded (a partial message)
        pending_fds = []  # and the descriptors that came with them, sent with the next bytes
        requests = b""  # client -> compositor bytes, read for wl_registry.bind (forwarded at once)
        inject = None

        def error_event(obj, code, text):
            text = text.encode() + b"\0"
            text += b"\0" * (-len(text) % 4)
            body = struct.pack("<III", obj, code, len(text.rstrip(b"\0")) + 1) + text
            return struct.pack("<II", 1, ((8 + len(body)) << 16) | 0) + body

        while True:
            ready, _, _ = select.select([client, upstream, wake_r], [], [])
            if wake_r in ready:
                os.read(wake_r, 64)
                obj, code, text = open(inject_file).read().split(" ", 2)
                inject = error_event(int(obj), int(code), text)
            if client in ready:
                data, fds, _, _ = socket.recv_fds(client, 65536, 28)
                if not data:
                    break
                socket.send_fds(upstream, [data], fds) if fds else upstream.sendall(data)
                requests += data
                while len(requests) >= 8:
                    size = struct.unpack("<II", requests[:8])[1] >> 16
                    if len(requests) < size:
                        break
                    message, requests = requests[:size], requests[size:]
                    # wl_registry.bind(name, interface string, version, new id): opcode 0, the new id last.
                    if struct.unpack("<I", message[4:8])[0] & 0xFFFF == 0 and size >= 24:
                        length = struct.unpack("<I", message[12:16])[0]
                        if size == 16 + length + (-length % 4) + 8:
                            name = message[16:16 + length - 1].decode(errors="replace")
                            print("bound", name, "as", struct.unpack("<I", message[-4:])[0], flush=True)
                for fd in fds:
                    os.close(fd)
            if upstream in ready:
                data, fds, _, _ = socket.recv_fds(upstream, 65536, 28)
                if not data:
                    break
                pending += data
                pending_fds += fds
                out = b""
                while len(pending) >= 8:
                    sender, word = struct.unpack("<II", pending[:8])
                    size = word >> 16
                    if len(pending) < size:
                        break
                    message, pending = pending[:size], pending[size:]
                    if hidden and sender != 1 and (word & 0xFFFF) == 0 and hidden + b"\0" in message:
                        print("hid a global", flush=True)
                        continue
                    out += message
                if out:
                    socket.send_fds(client, [out], pending_fds) if pending_fds else client.sendall(out)
                    for fd in pending_fds:
                        os.close(fd)
                    pending_fds = []
            if inject is not None and not pending:
                client.sendall(inject)
                inject = None
                print("injected", flush=True)
        """#
}
