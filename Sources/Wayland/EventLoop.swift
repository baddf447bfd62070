import CWaylandClient
import Glibc

/// The display thread's loop: one `poll` over the Wayland socket and every other source of work
/// (the message bus's eventfd, timers, signals), sleeping without a timeout when there is nothing to do.
///
/// The Wayland part follows wayland-client.h's `wl_display_prepare_read` protocol, like foot's `fdm` loop:
/// dispatch what is queued, do the work it caused, then `prepare_read`, flush, poll, `read_events`.
/// Work happens *before* `prepare_read`: Mesa's EGL reads the socket on its own queue inside
/// `eglSwapBuffers`, and a pending `prepare_read` of ours would make that read wait for us forever.
public final class EventLoop {
    private struct Source {
        var fd: Int32
        var handler: () -> Void
    }

    private let display: WaylandDisplay
    private var sources: [Source] = []
    /// Runs after events were dispatched and before sleeping: where the application renders dirty screens.
    public var beforeSleep: () -> Void = {}
    /// Called right before sleeping; false means "work arrived meanwhile, do not sleep" (the message bus's
    /// announce-then-recheck protocol: producers write the eventfd only after this announced the sleep).
    public var prepareToSleep: () -> Bool = { true }
    /// Called after every return from `poll`, whatever woke it.
    public var didWake: () -> Void = {}
    /// Another loop's descriptors, polled with ours instead of on a thread of their own (GLib's main context, once
    /// a web page is shown): `prepare` is asked right before each poll for descriptors and a timeout in
    /// milliseconds (-1: none), `dispatch` gets their `revents` after the poll (all 0 when it was interrupted).
    public var foreignPoll:
        (prepare: () -> (fds: [(fd: Int32, events: Int16)], timeout: Int32), dispatch: ([Int16]) -> Void)?

    public init(display: WaylandDisplay) {
        self.display = display
    }

    /// Calls `handler` on the display thread whenever `fd` is readable. The handler must consume the
    /// readiness (read the eventfd, timerfd or signalfd), or the loop spins.
    public func watch(_ fd: Int32, handler: @escaping () -> Void) {
        sources.append(Source(fd: fd, handler: handler))
    }

    public func unwatch(_ fd: Int32) {
        sources.removeAll { $0.fd == fd }
    }

    /// Runs until `shouldStop` returns true (checked after every wakeup).
    /// - Throws: ``WaylandError`` when the connection fails; the caller exits with its documented status.
    public func run(until shouldStop: () -> Bool) throws {
        while !shouldStop() {
            try dispatchAndWork()
            let waylandFD = display.fileDescriptor
            var wantWrite = false
            if try !display.flush() { wantWrite = true }

            var fds = [pollfd(fd: waylandFD, events: Int16(POLLIN | (wantWrite ? POLLOUT : 0)), revents: 0)]
            let watched = sources
            fds += watched.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let foreign = foreignPoll?.prepare()
            let foreignStart = fds.count
            fds += (foreign?.fds ?? []).map { pollfd(fd: $0.fd, events: $0.events, revents: 0) }
            var timeout: Int32 = prepareToSleep() ? -1 : 0
            if let wanted = foreign?.timeout, wanted >= 0, timeout < 0 || wanted < timeout { timeout = wanted }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            let pollError = ready < 0 ? errno : 0  // before anything else can change errno
            didWake()
            if ready < 0 {
                // Not retried in place: a pending prepare_read must be cancelled first, then the loop prepares again.
                display.cancelRead()
                foreignPoll?.dispatch([Int16](repeating: 0, count: fds.count - foreignStart))
                if pollError == EINTR { continue }
                throw WaylandError.connectionLost(errno: pollError)
            }
            let waylandEvents = Int32(fds[0].revents)
            if waylandEvents & Int32(POLLIN) != 0 {
                try display.readEvents()
            } else {
                display.cancelRead()
                // Hang-up with nothing left to read: the compositor is gone.
                if waylandEvents & Int32(POLLHUP | POLLERR) != 0 {
                    throw display.currentError(fallbackErrno: ECONNRESET)
                }
            }
            for (index, source) in watched.enumerated() where fds[index + 1].revents != 0 {
                source.handler()
            }
            if foreign != nil { foreignPoll?.dispatch(fds[foreignStart...].map(\.revents)) }
        }
    }

    /// Dispatches queued events and runs ``beforeSleep`` until the queue is empty and `prepare_read` succeeds.
    private func dispatchAndWork() throws {
        while true {
            try display.dispatchPending()
            beforeSleep()
            if display.prepareRead() { return }
        }
    }
}
