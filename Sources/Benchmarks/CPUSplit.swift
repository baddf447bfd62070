import CompositorHarness
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One CPU for the side being measured (the compositor and the kiosk), another for the side that measures it (this
/// process: the load it generates and the clients that time it).
///
/// The load of `remote-load` and `bad-input` stands for phones and hostile clients on other machines. On a machine
/// with two CPUs, generating it costs about as much as serving it, so with everything sharing both CPUs the frames
/// measure the load generator as much as Multiscreen. Split, the kiosk keeps one CPU in both halves of the run (alone
/// and under load), and what the load adds to its frames is only what Multiscreen itself spends on it.
public struct CPUSplit: Sendable, Equatable {
    public var kiosk: Int
    public var load: Int

    public init(kiosk: Int, load: Int) {
        self.kiosk = kiosk
        self.load = load
    }

    /// Pins every thread of `kioskProcesses` to ``kiosk`` and every thread of this process to ``load``. A thread
    /// made later inherits the CPU of the thread that makes it, so this is done once, when the kiosk is up.
    func apply(kioskProcesses: [pid_t]) throws {
        for pid in kioskProcesses { try Self.pin(process: pid, to: kiosk) }
        try Self.pin(process: getpid(), to: load)
    }

    /// Pins the calling thread to `cpu`.
    static func pinCurrentThread(to cpu: Int) throws {
        let error = setAffinity(thread: 0, cpu: cpu)
        if error != 0 {
            throw HarnessError("cannot pin this thread to CPU \(cpu): \(String(cString: strerror(error)))")
        }
    }

    /// Pins each thread of `pid` (its `/proc/PID/task` entries) to `cpu`. Twice, for a thread made while the first
    /// pass ran by a thread not yet pinned; a thread that ended meanwhile is skipped.
    private static func pin(process pid: pid_t, to cpu: Int) throws {
        for _ in 0..<2 {
            for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
                guard let thread = pid_t(task) else { continue }
                let error = setAffinity(thread: thread, cpu: cpu)
                guard error == 0 || error == ESRCH else {
                    throw HarnessError(
                        "cannot pin thread \(thread) of process \(pid) to CPU \(cpu): \(String(cString: strerror(error)))"
                    )
                }
            }
        }
    }

    /// 0, or the error number of `sched_setaffinity(2)`.
    private static func setAffinity(thread: pid_t, cpu: Int) -> Int32 {
        guard let schedSetAffinity else { return ENOSYS }
        var set = cpu_set_t()
        withUnsafeMutableBytes(of: &set) { bytes in bytes[cpu / 8] |= UInt8(1 << (cpu % 8)) }
        return schedSetAffinity(thread, MemoryLayout<cpu_set_t>.size, &set) == 0 ? 0 : errno
    }

    /// `sched_setaffinity(2)` (pid 0: the calling thread). Glibc's Swift module leaves out the `_GNU_SOURCE` parts
    /// of `<sched.h>`, so the symbol is looked up at run time.
    private static let schedSetAffinity: (@convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "sched_setaffinity") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32).self)
    }()
}
