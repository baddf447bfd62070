import NIOCore
import Synchronization

/// Runs Swift tasks on one NIO event loop's thread: the phone remote's server and timer run on the remote's own
/// thread instead of the process-wide cooperative pool (two threads on a two-core kiosk), where any blocking call
/// elsewhere in the process (or in a test run beside it) could delay binding, a claim or a timer by seconds.
///
/// Its owner calls ``close()`` before shutting the loop down: jobs that come later (a cancelled sleep waking up)
/// go to the global executor instead of a loop that no longer runs them.
final class EventLoopExecutor: TaskExecutor, Sendable {
    private let loop: any EventLoop
    private let closed = Mutex(false)

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let onLoop = closed.withLock { closed in
            guard !closed else { return false }
            loop.execute { job.runSynchronously(on: executor) }
            return true
        }
        if !onLoop { globalConcurrentExecutor.enqueue(job) }
    }

    func close() { closed.withLock { $0 = true } }
}
