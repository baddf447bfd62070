import Foundation
import Glibc
import Synchronization
import SystemCalls
import Testing

@Suite struct LoopThreadTests {
    private final class Flags: Sendable {
        let stopRequested = Atomic(false)
        let loopsFreed = Atomic(0)
    }

    /// The loop object the thread runs: it ends when asked and tells when it is freed.
    private final class Loop {
        let flags: Flags
        init(_ flags: Flags) { self.flags = flags }
        deinit { flags.loopsFreed.add(1, ordering: .sequentiallyConsistent) }
        func run() {
            while !flags.stopRequested.load(ordering: .acquiring) { usleep(1000) }
        }
    }

    @Test func stopAsksOnceJoinsAndTheLoopIsFreedWithItsThread() throws {
        let flags = Flags()
        var asked = 0
        let thread = LoopThread()
        #expect(!thread.stop { asked += 1 }, "not started: nothing to stop")
        do {
            let loop = Loop(flags)
            try thread.start(name: "test-loop") { loop.run() }
        }
        #expect(flags.loopsFreed.load(ordering: .sequentiallyConsistent) == 0, "the running thread holds the loop")
        let first = thread.stop {
            asked += 1
            flags.stopRequested.store(true, ordering: .releasing)
        }
        #expect(first)
        #expect(flags.loopsFreed.load(ordering: .sequentiallyConsistent) == 1, "joined: the loop ended and was freed")
        #expect(!thread.stop { asked += 1 }, "a second stop does nothing")
        #expect(asked == 1)
    }

    /// What the thread sees of itself: its name (cut to the kernel's 15 bytes, at a character boundary) and a nice
    /// value raised by `niceness` from the process's, not set to it.
    @Test func theThreadIsNamedAndNicerThanItsStarter() throws {
        let seen = Mutex<(name: String, nice: Int32)?>(nil)
        let thread = LoopThread()
        errno = 0
        let starter = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        try #require(errno == 0)
        try thread.start(name: "ms-control-ab-über", niceness: 3) {
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            seen.withLock { $0 = (comm.trimmingCharacters(in: .newlines), nice) }
        }
        thread.stop {}
        let result = try #require(seen.withLock { $0 })
        #expect(result.name == "ms-control-ab-")
        #expect(result.nice == min(starter + 3, 19))
    }
}
