import Glibc
import Synchronization

/// A thread that runs one loop to its end, and the one place it is created and joined.
///
/// Multiscreen's producers that own a thread (the control socket, the fleet link) hand their loop object to it:
/// the thread holds the loop's only strong reference while it runs, and ``stop(asking:)`` asks the loop to end and
/// waits for it, exactly once, whichever thread calls it. Created empty, so that its owner can be complete (and
/// hand itself out, e.g. as a reply sink) before the thread starts.
public final class LoopThread: Sendable {
    private let handle = Mutex<pthread_t?>(nil)

    public init() {}

    /// Starts the thread, which calls `run` and ends when it returns. At most once.
    /// - Parameters:
    ///   - name: The thread's name as `top -H`, `ps -L` and debuggers show it (at most 15 bytes are kept).
    ///   - niceness: Added to the thread's nice value (``ClientThreads``).
    /// - Throws: ``SystemCallError`` when the thread cannot be created (`run` is then never called).
    public func start(name: String, niceness: Int32 = 0, running run: @escaping () -> Void) throws(SystemCallError) {
        // `run` captures a loop object that is not Sendable: it is handed over, not shared, so it travels as an
        // unmanaged reference the new thread takes.
        final class Body {
            let name: String
            let niceness: Int32
            let run: () -> Void
            init(_ name: String, _ niceness: Int32, _ run: @escaping () -> Void) {
                self.name = name
                self.niceness = niceness
                self.run = run
            }
        }
        let body = Unmanaged.passRetained(Body(name, niceness, run))
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { context in
                let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
                ClientThreads.nameCallingThread(body.name)
                if body.niceness != 0 { ClientThreads.lowerCallingThread(by: body.niceness) }
                body.run()
                return nil
            }, body.toOpaque())
        if result != 0 {
            body.release()
            throw SystemCallError(call: "pthread_create", errno: result)
        }
        handle.withLock { handle in
            precondition(handle == nil, "a LoopThread runs one loop")
            handle = thread
        }
    }

    /// Asks the loop to end with `request` and waits until its thread has; true the first time, false when the
    /// thread was already stopped (nothing is asked then).
    @discardableResult
    public func stop(asking request: () -> Void) -> Bool {
        let taken = handle.withLock { handle in
            defer { handle = nil }
            return handle
        }
        guard let thread = taken else { return false }
        request()
        pthread_join(thread, nil)
        return true
    }
}
