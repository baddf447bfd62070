import CompositorHarness
import Foundation

/// A directory whose `fsync`s, or the opens of one file, can be made to hang, as on a dying SD card or a hung network
/// home: a FUSE file system (fusepy) passing every call through to a real directory, except that while ``stall()``
/// holds, an `fsync(2)` of a file in it does not return until ``recover()``, and while ``stallOpens(of:)`` holds, an
/// `open(2)` of that file does not either. Mounted over an existing path (the state directory of a
/// Multiscreen home), so the program under test sees an ordinary directory.
final class StallingDirectory {
    let process: ChildProcess
    let mountPoint: String
    /// Where the files really are: what was written, as the disk has it.
    let backing: String
    private let control: String

    /// Mounts the file system over `mountPoint` (made when missing).
    init(at mountPoint: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ms-disk-\(UUID().uuidString)")
            .path
        self.mountPoint = mountPoint
        backing = directory + "/backing"
        control = directory + "/control"
        for path in [mountPoint, backing, control] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        let script = directory + "/disk.py"
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        process = try ChildProcess("/usr/bin/python3", [script, backing, mountPoint, control], environment: [:])
        do {
            try waitUntil(timeout: 10, "the stalling directory mounted") {
                guard process.isRunning else { throw HarnessError("the file system ended: \(process.output)") }
                return process.output.contains("mounting")
                    && (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8))?.contains(" \(mountPoint) ")
                        == true
            }
        } catch {
            throw HarnessError("\(error); the file system said: \(process.output)")
        }
    }

    /// From now on, every `fsync` of a file waits until ``recover()``.
    func stall() {
        _ = FileManager.default.createFile(atPath: control + "/stall", contents: nil)
    }

    /// From now on, every `open(2)` of the file called `name` (in any directory) waits until ``recover()``.
    func stallOpens(of name: String) {
        _ = FileManager.default.createFile(atPath: control + "/stall-open", contents: Data(name.utf8))
    }

    /// The disk is back: every waiting `fsync` and `open` returns, and later ones do not wait.
    func recover() {
        for file in ["stall", "stall-open"] { try? FileManager.default.removeItem(atPath: control + "/" + file) }
    }

    /// `fsync`s that waited (or still wait) on the stall so far.
    var stalledSyncs: Int { process.output.components(separatedBy: "stalled fsync").count - 1 }
    /// `open`s that waited (or still wait) on the stall so far.
    var stalledOpens: Int { process.output.components(separatedBy: "stalled open").count - 1 }

    /// Lets every waiting `fsync` return first (a process waiting in one cannot be ended, even by SIGKILL), then
    /// unmounts and ends the file system's process. Safe twice.
    func unmount() {
        recover()
        _ = try? ChildProcess("/usr/bin/umount", ["-l", mountPoint], environment: [:]).waitForExit(timeout: 10)
        process.kill()
    }

    private static let script = #"""
        import errno, os, sys, time
        from fusepy import FUSE, FuseOSError, Operations

        backing, mount_point, control = sys.argv[1], sys.argv[2], sys.argv[3]
        stall = os.path.join(control, "stall")
        stall_open = os.path.join(control, "stall-open")

        def hold_open(path):
            try:
                with open(stall_open) as names:
                    held = names.read()
            except FileNotFoundError:
                return
            if os.path.basename(path) == held:
                print("stalled open", path, flush=True)
                while os.path.exists(stall_open):
                    time.sleep(0.05)

        class Disk(Operations):
            """fusepy's loopback, every call on the backing directory, with fsync held while the stall file exists and
            the opens of one file while stall-open names it."""

            def __call__(self, op, path, *args):
                return super().__call__(op, backing + path, *args)

            def access(self, path, mode):
                if not os.access(path, mode):
                    raise FuseOSError(errno.EACCES)

            chmod = os.chmod
            chown = os.chown

            def create(self, path, mode, fi=None):
                hold_open(path)
                return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)

            def flush(self, path, fh):
                return 0

            def fsync(self, path, datasync, fh):
                if os.path.exists(stall):
                    print("stalled fsync", path, flush=True)
                    # Python runs signal handlers only between bytecodes of its main thread, which libfuse's loop
                    # holds: the test says the disk is back by removing a file.
                    while os.path.exists(stall):
                        time.sleep(0.05)
                os.fsync(fh)
                return 0

            def fsyncdir(self, path, datasync, fh):
                return 0

            def getattr(self, path, fh=None):
                st = os.lstat(path)
                return {key: getattr(st, key) for key in (
                    "st_atime", "st_ctime", "st_gid", "st_mode", "st_mtime", "st_nlink", "st_size", "st_uid")}

            mkdir = os.mkdir

            def open(self, path, flags):
                hold_open(path)
                return os.open(path, flags)

            def read(self, path, size, offset, fh):
                return os.pread(fh, size, offset)

            def readdir(self, path, fh):
                return [".", ".."] + os.listdir(path)

            def release(self, path, fh):
                os.close(fh)
                return 0

            def rename(self, old, new):
                os.rename(old, backing + new)
                return 0

            rmdir = os.rmdir

            def statfs(self, path):
                stv = os.statvfs(path)
                return {key: getattr(stv, key) for key in (
                    "f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files", "f_flag",
                    "f_frsize", "f_namemax")}

            def truncate(self, path, length, fh=None):
                os.truncate(path, length)

            unlink = os.unlink
            utimens = os.utime

            def write(self, path, data, offset, fh):
                return os.pwrite(fh, data, offset)

        print("mounting", flush=True)
        FUSE(Disk(), mount_point, foreground=True, nothreads=False, allow_other=True)
        """#
}
