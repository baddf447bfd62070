import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A private `XDG_RUNTIME_DIR` for one compositor: created 0700, removed with everything in it on `remove()`.
///
/// When we run as root the compositor may run as an unprivileged user (sway refuses root), so the directory is
/// handed to that user; root clients can still use it.
final class RuntimeDirectory: Sendable {
    let path: String

    /// Creates `/tmp/<prefix>-XXXXXX`. The path is short on purpose: Unix socket paths are limited to 108 bytes.
    init(prefix: String, owner: Privileges.User?) throws {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard created != nil else {
            throw HarnessError("mkdtemp /tmp/\(prefix)-XXXXXX failed: \(String(cString: strerror(errno)))")
        }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if let owner, chown(path, owner.uid, owner.gid) != 0 {
            let reason = String(cString: strerror(errno))
            rmdir(path)
            throw HarnessError("chown \(path) to \(owner.uid):\(owner.gid) failed: \(reason)")
        }
    }

    /// Writes a file readable by the (possibly unprivileged) compositor.
    func write(_ name: String, _ contents: String) throws -> String {
        let file = "\(path)/\(name)"
        guard
            FileManager.default.createFile(
                atPath: file, contents: Data(contents.utf8), attributes: [.posixPermissions: 0o644])
        else { throw HarnessError("cannot write \(file): \(String(cString: strerror(errno)))") }
        return file
    }

    /// Creates a subdirectory owned like the runtime directory.
    func makeSubdirectory(_ name: String, owner: Privileges.User?) throws -> String {
        let directory = "\(path)/\(name)"
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
            throw HarnessError("mkdir \(directory) failed: \(String(cString: strerror(errno)))")
        }
        if let owner { _ = chown(directory, owner.uid, owner.gid) }
        return directory
    }

    /// Names of the entries in the directory.
    func entries() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Who the compositors run as.
public enum Privileges {
    public struct User: Sendable {
        public var uid: uid_t
        public var gid: gid_t
    }

    /// sway 1.7 refuses to run as root ("Unable to drop root, refusing to start"), and CI runs as root. Then the
    /// harness runs sway as `nobody` (65534) through `setpriv`; clients running as root can still connect to it.
    public static var unprivilegedUserForSway: User? {
        geteuid() == 0 ? User(uid: 65_534, gid: 65_534) : nil
    }

    /// The command prefix that runs a program as `user` (empty when `user` is nil).
    static func prefix(for user: User?) -> [String] {
        guard let user else { return [] }
        return ["setpriv", "--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups"]
    }
}
