import Synchronization
import SystemCalls

/// The four frames a video is decoded into, handed between GStreamer's streaming thread and the display thread
/// without a lock: neither side ever waits for the other.
///
/// Each slot's state moves free → writing (streaming thread, by compare-and-swap) → ready (release store, after the
/// copy) → taken (display thread, by compare-and-swap) → free (``release(slot:)``). A newer ready frame sends an
/// older one still waiting back to free (dropped: the display missed it); no free slot drops the new frame. A slot's
/// pixels are touched only by the side whose state it is in, and the acquire/release pairs on `state` order those
/// accesses. Four slots: one on screen, one the compositor may still hold, one ready, one being written.
final class FramePool: @unchecked Sendable {
    static let slotCount = 4

    enum State: Int {
        case free, writing, ready, taken
        /// After ``retireAll()``: never used again.
        case retired
    }

    final class Slot: @unchecked Sendable {
        let state = Atomic<Int>(State.free.rawValue)
        let number = Atomic<UInt64>(0)
        let presentationTime = Atomic<UInt64>(0)
        /// Owned by whoever the state says: the streaming thread while writing, the display thread while taken.
        var pixels: SharedPixels?
    }

    let slots = (0..<slotCount).map { _ in Slot() }
    let decoded = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)
    private let retiring = Atomic<Bool>(false)
    /// The number of the last frame ``take()`` handed out; touched only by the display thread.
    private var lastTaken: UInt64 = 0
    /// The streaming thread's sequence (one streaming thread at a time calls ``publish``).
    private var sequence: UInt64 = 0

    /// Streaming thread: a slot for a `width`×`height` frame, filled by `copy`, published as ready.
    /// - Returns: false when the frame was dropped (no free slot, no memory, `copy` failed, retired).
    func publish(width: Int32, height: Int32, presentationTime: UInt64, copy: (SharedPixels) -> Bool) -> Bool {
        guard !retiring.load(ordering: .acquiring),
            let slot = slots.first(where: {
                $0.state.compareExchange(
                    expected: State.free.rawValue, desired: State.writing.rawValue, ordering: .acquiring
                ).exchanged
            })
        else {
            dropped.add(1, ordering: .relaxed)
            return false
        }
        if slot.pixels?.width != width || slot.pixels?.height != height {
            slot.pixels = try? SharedPixels(width: width, height: height)
        }
        guard let pixels = slot.pixels, copy(pixels) else {
            slot.state.store(State.free.rawValue, ordering: .releasing)
            dropped.add(1, ordering: .relaxed)
            return false
        }
        sequence += 1
        slot.number.store(sequence, ordering: .relaxed)
        slot.presentationTime.store(presentationTime, ordering: .relaxed)
        slot.state.store(State.ready.rawValue, ordering: .releasing)
        decoded.add(1, ordering: .relaxed)
        // Any other ready frame is older (this thread is the only writer): the display will never want it now.
        for other in slots where other !== slot {
            if other.state.compareExchange(
                expected: State.ready.rawValue, desired: State.free.rawValue, ordering: .acquiringAndReleasing
            ).exchanged {
                dropped.add(1, ordering: .relaxed)
            }
        }
        return true
    }

    /// Display thread: the newest ready frame, now taken, or nil.
    func take() -> VideoFrame? {
        for _ in 0..<Self.slotCount {
            var newest: (index: Int, number: UInt64)?
            for (index, slot) in slots.enumerated()
            where slot.state.load(ordering: .acquiring) == State.ready.rawValue {
                let number = slot.number.load(ordering: .relaxed)
                // Older than a frame already taken (the streaming thread published a newer one and had not yet sent
                // this one back to free when that was taken): never shown, so a video never steps back.
                if number <= lastTaken {
                    if slot.state.compareExchange(
                        expected: State.ready.rawValue, desired: State.free.rawValue, ordering: .acquiringAndReleasing
                    ).exchanged {
                        dropped.add(1, ordering: .relaxed)
                    }
                    continue
                }
                if number > newest?.number ?? 0 { newest = (index, number) }
            }
            guard let newest else { return nil }
            let slot = slots[newest.index]
            if slot.state.compareExchange(
                expected: State.ready.rawValue, desired: State.taken.rawValue, ordering: .acquiringAndReleasing
            ).exchanged, let pixels = slot.pixels {
                lastTaken = newest.number
                return VideoFrame(
                    slot: newest.index, pixels: pixels, number: slot.number.load(ordering: .relaxed),
                    presentationTime: slot.presentationTime.load(ordering: .relaxed))
            }
            // The streaming thread superseded it meanwhile: look again.
        }
        return nil
    }

    /// Display thread: `slot`, taken, is free again. A slot not taken is left alone (a double release).
    func release(slot index: Int) {
        guard slots.indices.contains(index) else { return }
        let slot = slots[index]
        guard
            slot.state.compareExchange(
                expected: State.taken.rawValue, desired: State.free.rawValue, ordering: .acquiringAndReleasing
            ).exchanged
        else { return }
        if retiring.load(ordering: .sequentiallyConsistent) { retire(slot) }
    }

    /// After the streaming thread has stopped: every slot not taken gives its memory back now, a taken one when it
    /// is released. Safe twice.
    func retireAll() {
        retiring.store(true, ordering: .sequentiallyConsistent)
        for slot in slots { retire(slot) }
    }

    private func retire(_ slot: Slot) {
        while true {
            let state = slot.state.load(ordering: .acquiring)
            guard state != State.taken.rawValue && state != State.retired.rawValue else { return }
            if slot.state.compareExchange(
                expected: state, desired: State.retired.rawValue, ordering: .acquiringAndReleasing
            ).exchanged {
                slot.pixels = nil
                return
            }
        }
    }
}
