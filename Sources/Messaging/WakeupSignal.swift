import Atomics
import CLinux
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// The display thread's "I am about to sleep" flag and the eventfd that wakes it.
///
/// The protocol (a Dekker-style handshake, so a busy consumer costs producers no syscall):
/// - consumer: `sleeping = true`; seq_cst fence; re-check every ring; if something is there, cancel and drain,
///   otherwise poll the eventfd.
/// - producer: publish the element (release store of the ring's tail); seq_cst fence; if `sleeping`, swap it to
///   false and, if this producer won the swap, write the eventfd.
///
/// Why it cannot lose a wakeup: the two fences are ordered in the single total order of seq_cst operations. If the
/// consumer's fence comes first, the producer's load after its own fence sees `sleeping == true`; if the producer's
/// comes first, the consumer's re-check after its fence sees the new tail. Either the consumer does not sleep or the
/// producer wakes it. Why the swap: with several producers, only one pays the `write(2)` per sleep.
final class WakeupSignal: @unchecked Sendable {
    let fileDescriptor: Int32
    private let block: UnsafeMutableRawPointer
    private let sleeping: UnsafeAtomic<Bool>
    private let wakeupsSent: UnsafeAtomic<Int>

    init() throws(MessageError) {
        do {
            fileDescriptor = try systemCall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
        } catch {
            throw MessageError(.busy, "\(error)")
        }
        // `sleeping` is read by every producer after every send; alone on its lines it stays shared-clean in their
        // caches until the consumer actually goes to sleep. The syscall counter lives on other lines.
        block = .allocate(byteCount: 256, alignment: 128)
        let sleepingStorage = block.bindMemory(to: UnsafeAtomic<Bool>.Storage.self, capacity: 1)
        sleepingStorage.initialize(to: .init(false))
        sleeping = UnsafeAtomic(at: sleepingStorage)
        let counterStorage = (block + 128).bindMemory(to: UnsafeAtomic<Int>.Storage.self, capacity: 1)
        counterStorage.initialize(to: .init(0))
        wakeupsSent = UnsafeAtomic(at: counterStorage)
    }

    deinit {
        close(fileDescriptor)
        block.deallocate()
    }

    /// Consumer: the first half of going to sleep. The caller must re-check the rings after this returns.
    func announceSleep() {
        sleeping.store(true, ordering: .relaxed)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
    }

    /// Consumer: the re-check after `announceSleep` found work, so it will not poll. No read(2) here: a producer
    /// that raced us may have written the eventfd, which only makes the next poll return at once (harmless).
    func withdrawSleep() {
        sleeping.store(false, ordering: .relaxed)
    }

    /// Consumer: after a poll. Clears the flag and resets the eventfd's counter.
    func clearSleep() {
        sleeping.store(false, ordering: .relaxed)
        var counter: UInt64 = 0
        _ = read(fileDescriptor, &counter, 8)  // EAGAIN when nobody wrote: fine, the descriptor is non-blocking.
    }

    /// Producer: after publishing. Costs a fence and a load while the consumer is awake; a write(2) otherwise.
    @inline(__always)
    func notifyIfSleeping() {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if sleeping.load(ordering: .relaxed) { wake() }
    }

    @inline(never)
    private func wake() {
        guard sleeping.compareExchange(expected: true, desired: false, ordering: .relaxed).exchanged else { return }
        var one: UInt64 = 1
        _ = write(fileDescriptor, &one, 8)
        wakeupsSent.wrappingIncrement(ordering: .relaxed)
    }

    /// How many times producers wrote the eventfd: the syscalls the message path cost.
    var wakeups: Int { wakeupsSent.load(ordering: .relaxed) }
}
