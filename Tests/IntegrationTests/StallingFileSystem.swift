import CompositorHarness
import Foundation
import Glibc

/// A FUSE file system serving one real file whose reads stop returning past a point, as a network share or a failing
/// USB stick does: the bytes before `stallAfter` come at once, a read past it waits until ``recover()`` (the share
/// is back) or the file system's process ends (the kernel then fails the read). What no compositor or GStreamer element does on demand: a video that plays for a while, then gets no
/// more data, with GStreamer's source thread stuck in `read(2)`.
///
/// Written in Python with Debian's `python3-fusepy` (over libfuse 2), mounted by root (the tests' user here); the
/// file's bytes are the real file's, so everything before the stall is an ordinary read.
final class StallingFileSystem {
    let process: ChildProcess
    /// The mount point; the file is `mountPoint/<name of the file served>`.
    let mountPoint: String
    /// The served file's path under the mount point.
    let path: String
    private let directory: String

    /// Mounts a file system serving `file`, whose reads past `stallAfter` bytes never return until unmounted.
    init(serving file: String, stallAfter: Int) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ms-stall-\(UUID().uuidString)").path
        mountPoint = directory + "/mount"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let script = directory + "/stall.py"
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        path = mountPoint + "/" + (file as NSString).lastPathComponent
        process = try ChildProcess(
            "/usr/bin/python3", [script, file, mountPoint, "\(stallAfter)", directory + "/recovered"], environment: [:])
        do {
            try waitUntil(timeout: 10, "the stalling file system mounted") {
                guard process.isRunning else { throw HarnessError("the file system ended: \(process.output)") }
                return FileManager.default.fileExists(atPath: path)
            }
        } catch {
            throw HarnessError("\(error); the file system said: \(process.output)")
        }
    }

    /// Reads stopped at the stall point so far: each is a `read(2)` that has not returned.
    var stalledReads: Int { process.output.components(separatedBy: "stalled read").count - 1 }

    /// The share is back: every stalled read returns its bytes, and reads past the point no longer wait.
    func recover() {
        _ = FileManager.default.createFile(atPath: directory + "/recovered", contents: nil)
    }

    /// Lets every stalled read return first (a process waiting in one cannot be ended, even by SIGKILL, and neither can
    /// the file system's worker serving it), then unmounts and ends the file system's process. Safe twice.
    func unmount() {
        recover()
        _ = try? ChildProcess("/usr/bin/umount", ["-l", mountPoint], environment: [:]).waitForExit(timeout: 10)
        process.kill()
    }

    deinit {
        unmount()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static let script = #"""
        import errno, os, stat, sys, time
        from fusepy import FUSE, FuseOSError, Operations

        source, mount_point, stall_after, recovered = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
        name = "/" + os.path.basename(source)
        size = os.path.getsize(source)

        class Stalling(Operations):
            def getattr(self, path, fh=None):
                if path == "/":
                    return {"st_mode": stat.S_IFDIR | 0o755, "st_nlink": 2}
                if path == name:
                    return {"st_mode": stat.S_IFREG | 0o644, "st_nlink": 1, "st_size": size}
                raise FuseOSError(errno.ENOENT)

            def readdir(self, path, fh):
                return [".", "..", name[1:]]

            def read(self, path, length, offset, fh):
                if offset + length > stall_after and not os.path.exists(recovered):
                    print("stalled read at", offset, flush=True)
                    # Python runs signal handlers only between bytecodes of its main thread, which libfuse's loop
                    # holds: the test says the share is back with a file.
                    while not os.path.exists(recovered):
                        time.sleep(0.05)
                with open(source, "rb") as f:
                    f.seek(offset)
                    return f.read(length)

        print("mounting", flush=True)
        FUSE(Stalling(), mount_point, foreground=True, nothreads=False, allow_other=True, direct_io=True)
        """#
}
