import Atomics
import Foundation

@testable import Messaging

/// Enumerates every interleaving of a producer program and a consumer program over an ``SPSCRing``, by stateless
/// depth-first re-execution: the programs run on real threads, but only one at a time, and they switch only where
/// the ring touches the other side's index (``ExplorerAtomics`` parks the calling thread there). A run follows a
/// prefix of choices and then always picks the lowest-numbered ready thread; afterwards the deepest choice that
/// had an untried alternative is advanced. Each run is a distinct sequentially consistent execution.
///
/// Sequential consistency alone would hide weak-ordering bugs, so the memory also keeps vector clocks: an acquire
/// load that reads a release store joins the storer's clock, a relaxed store publishes nothing, and every plain
/// slot access must happen after the conflicting access before it. A relaxed store where a release is needed
/// therefore shows up as a race even though the interleaving itself is "correct".
final class InterleavingExplorer: @unchecked Sendable {
    static let producer = 0
    static let consumer = 1

    private let condition = NSCondition()
    private var parked = [false, false]
    private var finished = [false, false]
    private var running: Int?

    /// Runs `producer` on thread 0 and `consumer` on thread 1 under every schedule, calling `check` after each run.
    /// - Returns: the number of schedules explored.
    @discardableResult
    static func exploreAll(
        limit: Int = 100_000,
        run: (InterleavingExplorer) -> (
            producer: @Sendable () -> Void, consumer: @Sendable () -> Void, check: () -> Void
        )
    ) -> Int {
        var prefix: [Int] = []
        var runs = 0
        while true {
            let explorer = InterleavingExplorer()
            let programs = run(explorer)
            let trace = explorer.execute(following: prefix, programs.producer, programs.consumer)
            programs.check()
            runs += 1
            precondition(runs <= limit, "more than \(limit) schedules: make the programs smaller")
            guard let next = nextPrefix(after: trace) else { return runs }
            prefix = next
        }
    }

    private static func nextPrefix(after trace: [(enabled: [Int], chosen: Int)]) -> [Int]? {
        for step in trace.indices.reversed() {
            if let alternative = trace[step].enabled.first(where: { $0 > trace[step].chosen }) {
                return trace[..<step].map(\.chosen) + [alternative]
            }
        }
        return nil
    }

    private func execute(
        following prefix: [Int], _ producer: @escaping @Sendable () -> Void, _ consumer: @escaping @Sendable () -> Void
    )
        -> [(enabled: [Int], chosen: Int)]
    {
        for (index, body) in [producer, consumer].enumerated() {
            ExplorerThread.start(index: index, explorer: self, body: body)
        }
        var trace: [(enabled: [Int], chosen: Int)] = []
        condition.lock()
        defer { condition.unlock() }
        while true {
            while running != nil || !(0..<2).allSatisfy({ parked[$0] || finished[$0] }) { condition.wait() }
            let enabled = (0..<2).filter { parked[$0] }
            if enabled.isEmpty { return trace }
            let chosen = trace.count < prefix.count ? prefix[trace.count] : enabled[0]
            precondition(enabled.contains(chosen), "the programs are not deterministic under a fixed schedule")
            trace.append((enabled, chosen))
            parked[chosen] = false
            running = chosen
            condition.broadcast()
        }
    }

    /// Parks the calling explorer thread until the schedule picks it. A no-op on other threads.
    func schedulingPoint() {
        guard let index = ExplorerThread.currentIndex else { return }
        condition.lock()
        defer { condition.unlock() }
        parked[index] = true
        running = nil
        condition.broadcast()
        while running != index { condition.wait() }
    }

    fileprivate func finish(_ index: Int) {
        condition.lock()
        finished[index] = true
        running = nil
        condition.broadcast()
        condition.unlock()
    }
}

/// Explorer threads are Foundation threads tagged with their program's index (Foundation's `Thread` cannot be
/// subclassed from Swift on Linux, so the tag lives in the thread dictionary).
private enum ExplorerThread {
    private static let key = "InterleavingExplorer.index"

    static func start(index: Int, explorer: InterleavingExplorer, body: @escaping @Sendable () -> Void) {
        Thread {
            Thread.current.threadDictionary[key] = index
            explorer.schedulingPoint()
            body()
            explorer.finish(index)
        }.start()
    }

    static var currentIndex: Int? { Thread.current.threadDictionary[key] as? Int }
}

/// The shared memory of one explored run: the two indices (sequentially consistent, since one thread runs at a
/// time) plus the vector clocks that decide whether the plain slot accesses are ordered.
final class ExplorerMemory: @unchecked Sendable {
    enum Location { case head, tail }

    /// Break the ring on purpose, to prove the explorer notices.
    struct Weakening: OptionSet {
        let rawValue: Int
        /// The producer's release store of `tail` becomes relaxed.
        static let relaxedTailStore = Weakening(rawValue: 1)
        /// The producer's acquire load of `head` becomes relaxed.
        static let relaxedHeadLoad = Weakening(rawValue: 2)
    }

    let explorer: InterleavingExplorer
    let mask: UInt
    let weakening: Weakening
    private(set) var head: UInt = 0
    private(set) var tail: UInt = 0
    private var released: [Location: [Int]] = [:]
    private var clocks = [[1, 0], [0, 1]]
    private var lastWrite: [UInt: [Int]] = [:]
    private var lastRead: [UInt: [Int]] = [:]
    private(set) var races: [String] = []

    init(explorer: InterleavingExplorer, capacity: Int, weakening: Weakening = []) {
        self.explorer = explorer
        self.mask = UInt(capacity - 1)
        self.weakening = weakening
    }

    func atomics(start: UInt) -> ExplorerAtomics {
        head = start
        tail = start
        return ExplorerAtomics(memory: self)
    }

    func load(_ location: Location, _ ordering: AtomicLoadOrdering) -> UInt {
        guard let thread = ExplorerThread.currentIndex else { return value(location) }
        let owner = location == .head ? InterleavingExplorer.consumer : InterleavingExplorer.producer
        // Loading one's own index needs no scheduling point: nobody else writes it.
        if thread != owner { explorer.schedulingPoint() }
        var acquires = ordering == .acquiring || ordering == .sequentiallyConsistent
        if location == .head && thread == InterleavingExplorer.producer && weakening.contains(.relaxedHeadLoad) {
            acquires = false
        }
        if acquires, let clock = released[location] { clocks[thread] = zip(clocks[thread], clock).map { max($0, $1) } }
        return value(location)
    }

    func store(_ location: Location, _ newValue: UInt, _ ordering: AtomicStoreOrdering) {
        guard let thread = ExplorerThread.currentIndex else { return setValue(location, newValue) }
        explorer.schedulingPoint()
        var releases = ordering == .releasing || ordering == .sequentiallyConsistent
        if location == .tail && weakening.contains(.relaxedTailStore) { releases = false }
        released[location] = releases ? clocks[thread] : nil
        clocks[thread][thread] += 1
        setValue(location, newValue)
    }

    func slotWritten(_ index: UInt) {
        guard let thread = ExplorerThread.currentIndex else { return }
        let slot = index & mask
        if let read = lastRead[slot], !happensBefore(read, thread) {
            races.append("slot \(slot) overwritten by the producer before the consumer's read of it happened-before")
        }
        lastWrite[slot] = clocks[thread]
        clocks[thread][thread] += 1
    }

    func slotRead(_ index: UInt) {
        guard let thread = ExplorerThread.currentIndex else { return }
        let slot = index & mask
        if let write = lastWrite[slot], !happensBefore(write, thread) {
            races.append("slot \(slot) read by the consumer before the producer's write of it happened-before")
        }
        lastRead[slot] = clocks[thread]
        clocks[thread][thread] += 1
    }

    private func happensBefore(_ clock: [Int], _ thread: Int) -> Bool {
        zip(clock, clocks[thread]).allSatisfy { $0 <= $1 }
    }

    private func value(_ location: Location) -> UInt { location == .head ? head : tail }

    private func setValue(_ location: Location, _ newValue: UInt) {
        if location == .head { head = newValue } else { tail = newValue }
    }
}

/// ``RingIndexAtomics`` over an ``ExplorerMemory``.
struct ExplorerAtomics: RingIndexAtomics {
    let memory: ExplorerMemory

    func loadHead(ordering: AtomicLoadOrdering) -> UInt { memory.load(.head, ordering) }
    func storeHead(_ value: UInt, ordering: AtomicStoreOrdering) { memory.store(.head, value, ordering) }
    func loadTail(ordering: AtomicLoadOrdering) -> UInt { memory.load(.tail, ordering) }
    func storeTail(_ value: UInt, ordering: AtomicStoreOrdering) { memory.store(.tail, value, ordering) }
    func didWriteSlot(at index: UInt) { memory.slotWritten(index) }
    func willReadSlot(at index: UInt) { memory.slotRead(index) }
}
