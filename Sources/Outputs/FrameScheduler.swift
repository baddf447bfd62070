/// When a screen may draw: only when something changed, and never while the previous frame is still
/// waiting for its `wl_surface.frame` callback.
///
/// This is the policy of foot's `render.c` (a dirty flag plus one outstanding frame callback): bursts of
/// changes coalesce into one frame, the compositor paces us, and an idle screen costs nothing. A hidden screen
/// gets no callbacks and therefore stays quietly dirty without holding up any other screen.
public struct FrameScheduler: Equatable, Sendable {
    public private(set) var isDirty = true
    public private(set) var awaitsFrameCallback = false

    public init() {}

    /// Something visible changed.
    public mutating func invalidate() { isDirty = true }

    public var shouldRender: Bool { isDirty && !awaitsFrameCallback }

    /// Whether to draw now under `pacing` (``FramePacing/deadline`` also waits for its time, which the screen keeps).
    public func shouldRender(_ pacing: FramePacing) -> Bool {
        pacing == .frame ? shouldRender : isDirty
    }

    /// A frame was committed with a frame callback requested.
    public mutating func didRender() {
        isDirty = false
        awaitsFrameCallback = true
    }

    /// The compositor is ready for the next frame.
    public mutating func frameDone() { awaitsFrameCallback = false }

    /// Its content was drawn as part of another surface (one window spanning every output, under cage).
    public mutating func drawnElsewhere() { isDirty = false }

    /// The surface was recreated or reconfigured and its callback is gone: draw as soon as possible.
    public mutating func reset() {
        isDirty = true
        awaitsFrameCallback = false
    }
}
