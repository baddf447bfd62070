import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A private `mosquitto` MQTT broker on a free loopback port, for the fleet tests and benchmarks.
///
/// Ownership: the instance owns the broker process and its directory (config, persistence, password file).
/// ``stop()`` ends the process (SIGTERM: the broker writes its persistence file) and ``start()`` starts it again on
/// the same port with the same files, so queued QoS 1 messages of persistent sessions survive a restart.
/// `deinit` kills it and removes the directory.
public final class MosquittoBroker: @unchecked Sendable {
    public let port: Int
    public let directory: String
    /// The running broker, if any (``stop()`` and ``start()`` may run on another thread than the test's).
    public var process: ChildProcess? { running.withLock { $0 } }
    private let running = Mutex<ChildProcess?>(nil)

    /// With TLS: the CA that signed the broker's certificate (for 127.0.0.1), for clients to verify it.
    public private(set) var caFile: String?
    /// With `requireClientCertificate`: a client certificate and its key that the broker accepts.
    public private(set) var clientCertificate: (certificate: String, key: String)?

    /// - Parameters:
    ///   - users: usernames and passwords the broker accepts; empty: anonymous clients are allowed.
    ///   - acl: the text of an `acl_file`.
    ///   - tls: listen with TLS, with a certificate for 127.0.0.1 signed by a CA made for this broker (``caFile``).
    ///   - requireClientCertificate: with TLS, refuse clients without a certificate signed by that CA (one is made:
    ///     ``clientCertificate``).
    public init(
        users: [String: String] = [:], acl: String? = nil, tls: Bool = false, requireClientCertificate: Bool = false
    ) throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "mosquitto-\(UUID().uuidString.prefix(8))"
            ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try Self.freePort()
        var config = """
            listener \(port) 127.0.0.1
            persistence true
            persistence_location \(directory)/
            log_dest stderr
            log_type error
            log_type warning
            log_type notice
            log_type information
            max_queued_messages 100000
            max_inflight_messages 0
            set_tcp_nodelay true

            """
        if geteuid() == 0 { config += "user root\n" }
        if tls {
            try Self.makeCertificates(in: directory)
            caFile = directory + "/ca.pem"
            config += "cafile \(directory)/ca.pem\ncertfile \(directory)/server.pem\nkeyfile \(directory)/server.key\n"
            if requireClientCertificate {
                try Self.makeClientCertificate(in: directory)
                clientCertificate = (directory + "/client.pem", directory + "/client.key")
                config += "require_certificate true\n"
            }
        }
        if users.isEmpty {
            config += "allow_anonymous true\n"
        } else {
            let passwords = directory + "/passwords"
            _ = FileManager.default.createFile(atPath: passwords, contents: Data())
            for (user, password) in users.sorted(by: { $0.key < $1.key }) {
                let tool = try ChildProcess("mosquitto_passwd", ["-b", passwords, user, password])
                guard try tool.waitForExit(timeout: 10) == 0 else {
                    throw HarnessError("mosquitto_passwd failed: \(tool.output)")
                }
            }
            chmod(passwords, 0o600)
            config += "allow_anonymous false\npassword_file \(passwords)\n"
        }
        if let acl {
            try acl.write(toFile: directory + "/acl", atomically: true, encoding: .utf8)
            chmod(directory + "/acl", 0o600)
            config += "acl_file \(directory)/acl\n"
        }
        try config.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        process?.kill()
        try? FileManager.default.removeItem(atPath: directory)
    }

    public var url: String { "\(caFile == nil ? "mqtt" : "mqtts")://127.0.0.1:\(port)" }

    /// A CA and a server certificate for 127.0.0.1 (subjectAltName IP), with `openssl`.
    /// A client certificate signed by the CA in `directory` (`client.pem`, `client.key`).
    static func makeClientCertificate(in directory: String) throws {
        for arguments in [
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out", "client.csr", "-subj",
                "/CN=kiosk",
            ],
            [
                "x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                "client.pem", "-days", "2",
            ],
        ] {
            let tool = try ChildProcess("openssl", arguments, workingDirectory: directory)
            guard try tool.waitForExit(timeout: 30) == 0 else {
                throw HarnessError("openssl \(arguments.joined(separator: " ")) failed: \(tool.output)")
            }
        }
    }

    public static func makeCertificates(in directory: String, caName: String = "ca") throws {
        let steps = [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(caName).key", "-out", "\(caName).pem",
                "-days", "2", "-subj", "/CN=multiscreen-test-\(caName)",
            ],
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj",
                "/CN=127.0.0.1",
            ],
            [
                "x509", "-req", "-in", "server.csr", "-CA", "\(caName).pem", "-CAkey", "\(caName).key",
                "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.cnf",
            ],
        ]
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: directory + "/san.cnf", atomically: true, encoding: .utf8)
        for arguments in steps where caName == "ca" || arguments[1] == "-x509" {
            let tool = try ChildProcess("openssl", arguments, workingDirectory: directory)
            guard try tool.waitForExit(timeout: 30) == 0 else {
                throw HarnessError("openssl \(arguments.joined(separator: " ")) failed: \(tool.output)")
            }
        }
    }

    /// Starts the broker and waits until it accepts connections.
    public func start(timeout: Double = 10) throws {
        let broker = try running.withLock { current in
            precondition(current == nil, "the broker is already running")
            let broker = try ChildProcess("mosquitto", ["-c", directory + "/mosquitto.conf"])
            current = broker
            return broker
        }
        let port = port
        let listening = {
            if let status = broker.exitStatus {
                throw HarnessError("mosquitto exited with \(status): \(broker.output)")
            }
            return Self.accepts(port: port)
        }
        try waitUntil(
            timeout: timeout, "mosquitto to listen on 127.0.0.1:\(port)", logTail: { broker.output }, listening)
    }

    /// SIGTERM (the broker saves its persistent sessions and queued messages) and waits for the exit.
    public func stop() throws {
        guard let broker = running.withLock({ $0.take() }) else { return }
        broker.signal(SIGTERM)
        _ = try broker.waitForExit(timeout: 10)
    }

    /// Everything the broker logged so far (of the current run).
    public var log: String { process?.output ?? "" }

    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A port nobody listens on now (the kernel's choice for port 0).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else { throw HarnessError("bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
