import CLinux
import Foundation
import Glibc
import SystemCalls
import Wayland

/// Tells when files it was given change on disk: written in place, replaced (a new file renamed over one, as
/// deployment tools do), or removed. inotify watches their directories (a file replaced by a rename is a new inode,
/// which a watch on the old one would never see), and its queue is read on the display thread's loop: reading it
/// never waits on a disk. On its loop for its whole life, like ``OneShotTimer``; a directory where nothing happens
/// costs no wakeup.
final class FileChangeWatch {
    private let fd: Int32
    private weak var loop: EventLoop?
    /// Watched directories by watch descriptor, and back.
    private var directories: [Int32: String] = [:]
    private var watches: [String: Int32] = [:]
    /// Called on the display thread with the path of a file that changed (directory + name, as given to ``watch(_:)``).
    var changed: (String) -> Void = { _ in }

    init(on loop: EventLoop) throws(SystemCallError) {
        fd = try systemCall("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
        self.loop = loop
        loop.watch(fd) { [unowned self] in readEvents() }
    }

    deinit {
        loop?.unwatch(fd)
        close(fd)
    }

    /// Watches the directories of exactly these files from now on (each watch a kernel object, bounded by
    /// `fs.inotify.max_user_watches`: the ones no longer needed go).
    func watch(_ paths: Set<String>) {
        let wanted = Set(paths.map { ($0 as NSString).deletingLastPathComponent })
        for (directory, descriptor) in watches where !wanted.contains(directory) {
            inotify_rm_watch(fd, descriptor)
            watches[directory] = nil
            directories[descriptor] = nil
        }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ATTRIB)
        for directory in wanted where watches[directory] == nil {
            // A directory that cannot be watched (gone, or a file system without inotify): its files are not
            // followed, which costs a stale picture, never a failure.
            let descriptor = inotify_add_watch(fd, directory, mask)
            guard descriptor >= 0 else { continue }
            watches[directory] = descriptor
            directories[descriptor] = directory
        }
    }

    private func readEvents() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (descriptor, length) = buffer.withUnsafeBytes { bytes in
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, Int(event.len))
                }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let name = String(decoding: buffer[nameStart..<nameStart + length].prefix { $0 != 0 }, as: UTF8.self)
                if let directory = directories[descriptor], !name.isEmpty {
                    changed((directory as NSString).appendingPathComponent(name))
                }
                offset = nameStart + length
            }
        }
    }
}
