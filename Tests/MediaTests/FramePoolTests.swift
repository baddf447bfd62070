import Testing

@testable import Media

/// The pool's handoff without GStreamer: frames published by one thread, taken and released by another.
@Suite struct FramePoolTests {
    private func publish(_ pool: FramePool, _ value: UInt32) -> Bool {
        pool.publish(width: 4, height: 2, presentationTime: UInt64(value)) { pixels in
            pixels.words.update(repeating: value, count: 8)
            return true
        }
    }

    @Test func theNewestReadyFrameIsTakenAndOlderOnesDropped() throws {
        let pool = FramePool()
        #expect(pool.take() == nil)
        #expect(publish(pool, 1) && publish(pool, 2) && publish(pool, 3))
        let frame = try #require(pool.take())
        #expect(frame.number == 3 && frame.pixels.words[0] == 3 && frame.presentationTime == 3)
        #expect(pool.take() == nil)
        #expect(pool.dropped.load(ordering: .relaxed) == 2 && pool.decoded.load(ordering: .relaxed) == 3)
        pool.release(slot: frame.slot)
    }

    @Test func noFreeSlotDropsTheNewFrame() throws {
        let pool = FramePool()
        var taken: [VideoFrame] = []
        for value in 1...4 {
            #expect(publish(pool, UInt32(value)))
            taken.append(try #require(pool.take()))
        }
        #expect(!publish(pool, 5))
        #expect(pool.dropped.load(ordering: .relaxed) == 1)
        pool.release(slot: taken[0].slot)
        pool.release(slot: taken[0].slot)  // twice: ignored
        #expect(publish(pool, 6))
    }

    @Test func retiringKeepsTakenFramesUntilReleased() throws {
        let pool = FramePool()
        #expect(publish(pool, 1))
        let frame = try #require(pool.take())
        #expect(publish(pool, 2))
        pool.retireAll()
        pool.retireAll()
        #expect(pool.take() == nil)
        #expect(frame.pixels.words[0] == 1)
        pool.release(slot: frame.slot)
        #expect(pool.slots.allSatisfy { $0.state.load(ordering: .relaxed) == FramePool.State.retired.rawValue })
        #expect(!publish(pool, 3))
    }

    @Test func concurrentHandoffNeverTearsAFrame() async throws {
        let pool = FramePool()
        let producer = Task.detached {
            for value in 1...3000 { _ = publish(pool, UInt32(value)) }
        }
        var last: UInt64 = 0
        var torn = 0
        while !producer.isCancelled {
            if let frame = pool.take() {
                let first = frame.pixels.words[0]
                if !(0..<8).allSatisfy({ frame.pixels.words[$0] == first }) || UInt64(first) != frame.presentationTime {
                    torn += 1
                }
                #expect(frame.number > last)
                last = frame.number
                pool.release(slot: frame.slot)
            }
            if last >= 3000 || pool.decoded.load(ordering: .relaxed) + pool.dropped.load(ordering: .relaxed) >= 3000 {
                break
            }
            await Task.yield()
        }
        await producer.value
        #expect(torn == 0)
    }
}
