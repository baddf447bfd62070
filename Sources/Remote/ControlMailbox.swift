import CLinux
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What the server thread shares with everyone else: the display thread's replies, the stop request, the
/// counters, and the eventfd that wakes the server thread's `poll` when the first two change.
final class ControlMailbox: Sendable {
    struct Inbox {
        var replies: [String] = []
        var stopping = false
    }

    let wakeDescriptor: Int32
    let inbox = Mutex(Inbox())
    let statistics = Mutex(ControlStatistics())

    init() throws(ControlError) {
        let descriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        if descriptor < 0 { throw .system(operation: "eventfd for", path: "the control server", errno: errno) }
        wakeDescriptor = descriptor
    }

    deinit { close(wakeDescriptor) }

    /// Queues a reply and wakes the server thread. - Returns: false after `stop`, when nobody will write it.
    func post(reply: String) -> Bool {
        let accepted = inbox.withLock { inbox in
            if inbox.stopping { return false }
            inbox.replies.append(reply)
            return true
        }
        if accepted { wake() }
        return accepted
    }

    func requestStop() {
        inbox.withLock { $0.stopping = true }
        wake()
    }

    /// Server thread: resets the eventfd, then takes everything posted so far. Reset first, so a post that lands
    /// between the two is either taken now or wakes the next poll.
    func take() -> Inbox {
        var counter: UInt64 = 0
        _ = read(wakeDescriptor, &counter, 8)
        return inbox.withLock { inbox in
            let taken = inbox
            inbox.replies = []
            return taken
        }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }
}
