import CLinux
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// What one thread hands another whose `poll` watches the eventfd: a locked list, and the request to stop. The display
/// thread hands a transport's own thread its replies (with their tags) and events; a state write's thread hands the
/// display thread how the write went. The eventfd is written only when the mailbox goes from taken to not taken, so a
/// burst of items costs one syscall per wakeup of the taking thread.
public final class Mailbox<Item: Sendable>: Sendable {
    public struct Inbox: Sendable {
        public var items: [Item] = []
        public var stopping = false
        /// The eventfd has been written since the transport's thread last took the inbox.
        fileprivate var wakePending = false
    }

    /// For the taking thread's `poll`.
    public let wakeDescriptor: Int32
    private let inbox = Mutex(Inbox())
    /// Writes to the eventfd so far: what a test observes to check that nothing wakes a transport for nothing.
    public let wakeups = Atomic<Int>(0)

    /// - Throws: the `eventfd` failure.
    public init() throws(SystemCallError) {
        wakeDescriptor = try systemCall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
    }

    deinit { close(wakeDescriptor) }

    /// Queues `item` and wakes the transport's thread. - Returns: false after ``requestStop()``: nobody will take it.
    @discardableResult
    public func post(_ item: Item) -> Bool {
        let (accepted, needsWake) = inbox.withLock { inbox in
            if inbox.stopping { return (false, false) }
            inbox.items.append(item)
            return (true, Self.claimWake(&inbox))
        }
        if needsWake { wake() }
        return accepted
    }

    public func requestStop() {
        let needsWake = inbox.withLock { inbox in
            inbox.stopping = true
            return Self.claimWake(&inbox)
        }
        if needsWake { wake() }
    }

    /// Items posted and not yet taken.
    public var pending: Int { inbox.withLock { $0.items.count } }

    /// The taking thread: resets the eventfd, then takes everything posted so far. Reset first, so a post that lands
    /// between the two is either taken now or wakes the next poll: a post that found `wakePending` set appended
    /// before this take cleared it, under the same lock, so it is taken now.
    public func take() -> Inbox {
        var counter: UInt64 = 0
        _ = read(wakeDescriptor, &counter, 8)
        return inbox.withLock { inbox in
            let taken = inbox
            inbox.items = []
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
