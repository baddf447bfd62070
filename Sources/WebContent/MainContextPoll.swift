internal import CWebEngine
import Glibc
import Messaging

/// GLib's default main context, run by the display thread's own `poll` instead of a loop of its own: WebKit's IPC
/// with its processes and wpebackend-fdo's frame export are GLib sources, and their callbacks must run on the thread
/// that owns EGL and the screens. Before each poll ``prepare()`` says which descriptors GLib waits on and for how
/// long; after it ``dispatch(revents:)`` runs whatever became ready (`g_main_context_prepare`/`query`/`check`/
/// `dispatch`, the steps of `g_main_context_iteration`).
///
/// Made with the first web view and kept for the life of the process (WebKit cannot be shut down and started
/// again in one process); the display thread acquires the context for good.
public final class MainContextPoll {
    private let context: OpaquePointer
    private var fds = [GPollFD](repeating: GPollFD(), count: 8)
    private var count = 0
    private var priority: gint = 0
    private var prepared = false
    /// `CLOCK_MONOTONIC` ns: when the last poll was entered, and when the last dispatch ended.
    private var preparedAt: UInt64 = 0
    private var dispatchEndedAt: UInt64 = 0
    /// Inside a dispatch: how long what it dispatches may have waited for the display thread, at most (ns). A poll
    /// that slept means the descriptor became ready just now; one that returned at once means it may have been ready
    /// since the previous dispatch ended, while the thread drew and did other work.
    public private(set) var readyWaitedAtMost: UInt64 = 0

    public init() {
        context = g_main_context_default()
        _ = g_main_context_acquire(context)
    }

    /// The descriptors to poll with their events, and the timeout in milliseconds (-1: none; 0: work is ready).
    public func prepare() -> (fds: [(fd: Int32, events: Int16)], timeout: Int32) {
        let ready = g_main_context_prepare(context, &priority) != 0
        var timeout: gint = -1
        var needed = Int(g_main_context_query(context, priority, &timeout, &fds, gint(fds.count)))
        if needed > fds.count {
            fds = [GPollFD](repeating: GPollFD(), count: needed)
            needed = Int(g_main_context_query(context, priority, &timeout, &fds, gint(fds.count)))
        }
        count = needed
        prepared = true
        preparedAt = Self.now()
        let polled = fds[0..<count].map { (fd: $0.fd, events: Int16(bitPattern: $0.events)) }
        return (polled, ready ? 0 : timeout)
    }

    /// After the poll: `revents` in the order ``prepare()`` gave the descriptors. Runs the ready sources.
    public func dispatch(revents: [Int16]) {
        guard prepared else { return }
        prepared = false
        for index in 0..<min(count, revents.count) { fds[index].revents = gushort(bitPattern: revents[index]) }
        if g_main_context_check(context, priority, &fds, gint(count)) != 0 {
            let now = Self.now()
            let slept = now &- preparedAt > 500_000
            readyWaitedAtMost = slept || dispatchEndedAt == 0 ? 0 : now &- dispatchEndedAt
            g_main_context_dispatch(context)
        }
        dispatchEndedAt = Self.now()
    }

    private static func now() -> UInt64 { MonotonicClock.nanoseconds() }
}
