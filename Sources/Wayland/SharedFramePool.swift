import CWaylandClient
import Logging

/// The frames the controller is rendered into when one frame is shown on many surfaces (the controller's own and
/// every mirror's): a few ``ShmFrame``s of the controller's size, reused once every surface released them, and a
/// 1×1 black frame that letterboxes mirrors.
///
/// A surface keeps holding the frame it shows until it shows another (or, on some compositors, until the compositor
/// copied it): with the controller and mirrors committing in the same pass, two frames alternate; a mirror whose
/// output is slow to present holds an older one. The pool grows up to ``maximumFrames``, or two more than the
/// surfaces showing its frames when that is more (each mirror on an output that stopped presenting keeps the frame
/// it last showed, and the controller must still find one to draw into), and no further: with every frame held,
/// ``acquire(width:height:)`` says no and the controller waits for a `release` (counted in ``waitedForRelease``).
/// Frames of an old size are dropped as soon as nobody holds them.
///
/// Owned by the graphics owner; ``destroy()`` after every surface that showed its frames is gone.
public final class SharedFramePool {
    /// Frames of the controller's size at most: two alternate, the others cover surfaces slow to release.
    public static let maximumFrames = 4

    private let shm: OpaquePointer
    private var frames: [ShmFrame] = []
    /// The newest complete picture: what a mirror shows.
    public private(set) var latest: ShmFrame?
    /// The rows in which ``latest`` differs from the picture before it: what a surface that showed that one needs
    /// damaged to show the newest (``rowsToDamage(showing:after:)``).
    private var changedRows: Range<Int32>?
    /// Black, 1×1: every mirror's background, scaled to its output by a viewport.
    public let black: ShmFrame
    /// Times the controller found every frame held and waited for a release before drawing.
    public private(set) var waitedForRelease = 0
    /// Frames written so far.
    public private(set) var framesWritten = 0
    public private(set) var peakFrames = 0
    private let logger = Logger(label: "multiscreen.frames")

    /// - Throws: ``SystemCallError`` when the black frame's memory cannot be made.
    public init(shm: OpaquePointer) throws {
        self.shm = shm
        black = try ShmFrame(shm: shm, width: 1, height: 1, fill: 0xFF00_0000)
    }

    deinit { destroy() }

    /// A frame of `width`×`height` that no surface holds, to draw the next picture into: a free one of that size, or a
    /// new one while there are fewer than ``maximumFrames``. Nil when every frame is held (wait for a release).
    public func acquire(width: Int32, height: Int32) -> ShmFrame? {
        // Frames of another size are of no use once nobody shows them.
        frames.removeAll { frame in
            let stale = (frame.width != width || frame.height != height) && !frame.isHeld && frame !== latest
            if stale { frame.destroy() }
            return stale
        }
        // Prefer a free frame that is not the newest picture, so a mirror about to show it still finds it intact.
        let free = frames.filter { $0.width == width && $0.height == height && !$0.isHeld }
        if let frame = free.first(where: { $0 !== latest }) ?? free.first { return frame }
        // Surfaces that show (or showed) these frames: each holds at most one at a time.
        let surfaces = Set(frames.flatMap(\.surfaces)).count
        guard frames.count < max(Self.maximumFrames, surfaces + 2) else {
            waitedForRelease += 1
            return nil
        }
        do {
            let frame = try ShmFrame(shm: shm, width: width, height: height)
            frames.append(frame)
            peakFrames = max(peakFrames, frames.count)
            logger.debug("shared frame \(frames.count) of \(width)x\(height) made")
            return frame
        } catch {
            logger.error("cannot make a shared frame of \(width)x\(height): \(error)")
            return nil
        }
    }

    /// `frame` holds a complete new picture: mirrors show it from now on.
    public func publish(_ frame: ShmFrame) {
        changedRows = latest.flatMap { frame.rowsDiffering(from: $0) }
        latest = frame
        framesWritten += 1
        // The previous size's frames may all be free now.
        frames.removeAll { frame in
            let stale = (frame.width != latest?.width || frame.height != latest?.height) && !frame.isHeld
            if stale { frame.destroy() }
            return stale
        }
    }

    /// The rows to damage on a surface that shows `frame` after the picture numbered `shown` (``framesWritten`` when
    /// it was published): none when `frame` is that picture, those that changed when it is the next one, else nil
    /// (all of it). Numbers, not frames: a frame the compositor released is written again, and the surface may still
    /// show what it held before.
    public func rowsToDamage(showing frame: ShmFrame, after shown: Int?) -> Range<Int32>? {
        guard frame === latest, let shown else { return nil }
        if shown == framesWritten { return 0..<0 }
        return shown == framesWritten - 1 ? changedRows : nil
    }

    /// `surface` stops showing shared frames (it shows something else now, or it is being destroyed): its buffers
    /// go, each once the compositor released it.
    public func retire(surface: OpaquePointer?) {
        guard let id = SurfaceID(surface) else { return }
        for frame in frames { frame.retire(id) }
        black.retire(id)
    }

    /// `surface` stops showing the controller's frames but keeps the black one.
    public func retireFrames(surface: OpaquePointer?) {
        guard let id = SurfaceID(surface) else { return }
        for frame in frames { frame.retire(id) }
    }

    /// What `status` and the benchmarks count: frames of pixels, `wl_buffer`s alive, bytes of shared memory.
    public var statistics: Statistics {
        let all = frames + [black]
        return Statistics(
            frames: frames.count, held: frames.count { $0.isHeld }, buffers: all.reduce(0) { $0 + $1.bufferCount },
            bytes: all.reduce(0) { $0 + $1.byteCount }, peakFrames: peakFrames, framesWritten: framesWritten,
            waitedForRelease: waitedForRelease)
    }

    public struct Statistics: Sendable, Equatable {
        public var frames: Int
        public var held: Int
        public var buffers: Int
        public var bytes: Int
        public var peakFrames: Int
        public var framesWritten: Int
        public var waitedForRelease: Int
    }

    /// Destroys every frame (buffers, pools, mappings). Safe to call twice.
    public func destroy() {
        latest = nil
        for frame in frames { frame.destroy() }
        frames.removeAll()
        black.destroy()
    }
}
