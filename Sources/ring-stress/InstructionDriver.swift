import Messaging

/// The single-threaded loops `scripts/ring-instructions` runs under callgrind: `pairs` push+pop pairs through a
/// ring of capacity 1024, the way rigtorp/SPSCQueue's benchmark drives a queue (spin on `tryPush` until it
/// succeeds, spin on `tryPop` until it returns a value, add up what came out so nothing is optimised away).
/// The script runs two sizes and divides the difference of the instruction counts by the difference of the pairs,
/// so process start-up, the ring's allocation and the final print cancel out.
enum InstructionDriver {
    static let capacity = 1024
    static let batch = 512

    /// One push, then one pop, `pairs` times: the ring is never more than one element deep.
    @inline(never)
    static func pushThenPop(_ ring: SPSCRing<Int, HardwareRingAtomics>, pairs: Int) -> Int {
        var sum = 0
        for value in 0..<pairs {
            while !ring.tryPush(value) {}
            var popped = ring.tryPop()
            while popped == nil { popped = ring.tryPop() }
            sum &+= popped!
        }
        return sum
    }

    /// 512 pushes, then 512 pops, `pairs / 512` times: half the ring filled and emptied each round.
    @inline(never)
    static func batch512(_ ring: SPSCRing<Int, HardwareRingAtomics>, pairs: Int) -> Int {
        var sum = 0
        for _ in 0..<pairs / batch {
            for value in 0..<batch {
                while !ring.tryPush(value) {}
            }
            for _ in 0..<batch {
                var popped = ring.tryPop()
                while popped == nil { popped = ring.tryPop() }
                sum &+= popped!
            }
        }
        return sum
    }

    /// `ring-stress instructions push-then-pop|batch-512 PAIRS`; prints the sum (which also keeps it live).
    static func run(pattern: String, pairs: Int) {
        let ring = SPSCRing<Int, HardwareRingAtomics>(capacity: capacity)
        let sum: Int
        switch pattern {
        case "push-then-pop": sum = pushThenPop(ring, pairs: pairs)
        case "batch-512": sum = batch512(ring, pairs: pairs)
        default: fail("usage: ring-stress instructions push-then-pop|batch-512 PAIRS")
        }
        print("ring-stress: \(pattern) pairs=\(pairs) sum=\(sum)")
    }
}
