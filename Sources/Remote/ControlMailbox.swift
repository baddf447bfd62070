import CLinux
import Messaging
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// What the server thread shares with everyone else: the display thread's replies and published events, the stop
/// request, the counters, and the eventfd that wakes the server thread's `poll` when the first three change.
final class ControlMailbox: Sendable {
    struct Inbox {
        var replies: [Reply] = []
        /// Event lines published while at least one connection was subscribed, oldest first.
        var events: [String] = []
        var stopping = false
        /// The eventfd has been written since the server thread last took the inbox: posting more needs no
        /// second write (one syscall per server wakeup, however many replies and events arrive meanwhile).
        var wakePending = false
    }

    let wakeDescriptor: Int32
    let inbox = Mutex(Inbox())
    let statistics = Mutex(ControlStatistics())
    /// Connections subscribed to events, set by the server thread: while it is 0, ``post(event:)`` is a load and
    /// an increment, with no lock and no syscall.
    let subscribers = Atomic<Int>(0)
    /// Every ``post(event:)``, subscribers or not.
    let eventsPublished = Atomic<Int>(0)
    /// Writes to the eventfd so far: what a test observes to check that an event nobody listens to wakes nobody.
    let wakeups = Atomic<Int>(0)

    init() throws(ControlError) {
        do {
            wakeDescriptor = try systemCall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
        } catch {
            throw .system(operation: "eventfd for", path: "the control server", errno: error.errno)
        }
    }

    deinit { close(wakeDescriptor) }

    /// Queues a reply and wakes the server thread. - Returns: false after `stop`, when nobody will write it.
    func post(reply: Reply) -> Bool {
        let (accepted, needsWake) = inbox.withLock { inbox in
            if inbox.stopping { return (false, false) }
            inbox.replies.append(reply)
            return (true, Self.claimWake(&inbox))
        }
        if needsWake { wake() }
        return accepted
    }

    /// Queues an event line for the subscribers and wakes the server thread; with no subscriber, only counts it.
    /// - Returns: whether it was queued (false with no subscriber or after `stop`).
    func post(event: String) -> Bool {
        eventsPublished.add(1, ordering: .relaxed)
        // A subscriber whose subscription reply has been written is counted here already (the server thread
        // stores the count before writing the reply), so an event published after a client saw that reply is
        // delivered to it.
        guard subscribers.load(ordering: .acquiring) > 0 else { return false }
        let (accepted, needsWake) = inbox.withLock { inbox in
            if inbox.stopping { return (false, false) }
            inbox.events.append(event)
            return (true, Self.claimWake(&inbox))
        }
        if needsWake { wake() }
        return accepted
    }

    func requestStop() {
        inbox.withLock { $0.stopping = true }
        wake()
    }

    /// Server thread: resets the eventfd, then takes everything posted so far. Reset first, so a post that lands
    /// between the two is either taken now or wakes the next poll: a post that found `wakePending` set appended
    /// before this take cleared it, under the same lock, so it is taken now.
    func take() -> Inbox {
        var counter: UInt64 = 0
        _ = read(wakeDescriptor, &counter, 8)
        return inbox.withLock { inbox in
            let taken = inbox
            inbox.replies = []
            inbox.events = []
            inbox.wakePending = false
            return taken
        }
    }

    private static func claimWake(_ inbox: inout Inbox) -> Bool {
        defer { inbox.wakePending = true }
        return !inbox.wakePending
    }

    private func wake() {
        wakeups.add(1, ordering: .relaxed)
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }
}
