import Glibc

/// The checks every media file passes before a decoder sees it, each failure its own ``MediaError``: it exists, it is
/// a regular file (never opened otherwise: opening a FIFO would block), it is not empty, and it can be opened.
enum MediaFile {
    /// Checks `path` and opens it read-only.
    /// - Returns: the open descriptor (the caller closes it) and the file's size in bytes.
    static func open(_ path: String) throws(MediaError) -> (descriptor: Int32, size: Int) {
        var status = stat()
        if stat(path, &status) != 0 {
            let error = errno
            if error == ENOENT || error == ENOTDIR { throw .notFound(path: path) }
            throw .unreadable(path: path, reason: String(cString: strerror(error)))
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .notAFile(path: path) }
        guard status.st_size > 0 else { throw .empty(path: path) }
        var descriptor: Int32 = -1
        repeat {
            descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT { throw .notFound(path: path) }
            throw .unreadable(path: path, reason: String(cString: strerror(error)))
        }
        return (descriptor, Int(status.st_size))
    }

    /// Checks `path` as ``open(_:)`` does and closes it again: for decoders that open the file themselves.
    static func check(_ path: String) throws(MediaError) {
        let (descriptor, _) = try open(path)
        close(descriptor)
    }

    /// At most `count` bytes from the start of `path`, after the checks of ``open(_:)``.
    static func head(_ path: String, count: Int) throws(MediaError) -> [UInt8] {
        let (descriptor, size) = try open(path)
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: min(count, size))
        var filled = 0
        while filled < bytes.count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if read < 0 && errno == EINTR { continue }
            if read < 0 { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
            if read == 0 { break }
            filled += read
        }
        return Array(bytes[..<filled])
    }
}
