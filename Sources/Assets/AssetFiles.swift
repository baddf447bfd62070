import Foundation
import Glibc
import SystemCalls

/// The file system steps the cache takes, each through ``systemCall(_:_:)``: what makes a file appear whole under its
/// final name (written, `fsync`ed, renamed, the directory `fsync`ed so the rename survives a power cut).
enum AssetFiles {
    /// Creates `directory` and any missing parents, each with mode 0700.
    static func makeDirectory(_ directory: String) throws(AssetError) {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .file("cannot create \(directory): \(error.localizedDescription)")
        }
    }

    /// Creates a new file for writing (never an existing one), mode 0600.
    static func create(_ path: String) throws(AssetError) -> Int32 {
        do {
            return try systemCall("open \(path)") { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        } catch {
            throw .file("\(error)")
        }
    }

    static func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws(AssetError) {
        var offset = 0
        while offset < buffer.count {
            let remaining = buffer.count - offset
            do {
                offset += try systemCall("write \(path)") { Glibc.write(fd, buffer.baseAddress! + offset, remaining) }
            } catch {
                throw .file("\(error)")
            }
        }
    }

    static func sync(_ fd: Int32, path: String) throws(AssetError) {
        do {
            try systemCall("fsync \(path)") { fsync(fd) }
        } catch {
            throw .file("\(error)")
        }
    }

    /// Renames `from` over `to` (atomic: `to` is the old file or the new one, never part of either) and makes the
    /// rename durable.
    static func replace(_ to: String, with from: String, directory: String) throws(AssetError) {
        do {
            try systemCall("rename \(from)") { rename(from, to) }
        } catch {
            throw .file("\(error)")
        }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }

    /// Writes `data` whole to a new file beside `path` and renames it over `path`.
    static func writeAtomically(_ data: Data, to path: String, directory: String) throws(AssetError) {
        let temporary = path + ".\(UInt32.random(in: 0...UInt32.max))" + AssetCache.partialSuffix
        let fd = try create(temporary)
        do throws(AssetError) {
            defer { close(fd) }
            let failure: AssetError? = data.withUnsafeBytes { buffer in
                do throws(AssetError) {
                    try write(fd, buffer, path: temporary)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw failure }
            try sync(fd, path: temporary)
        } catch {
            unlink(temporary)
            throw error
        }
        do throws(AssetError) {
            try replace(path, with: temporary, directory: directory)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// The size of the file at `path`, nil when there is no regular file there.
    static func size(of path: String) -> Int64? {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(status.st_size)
    }
}
