/// When a screen may draw: only when something changed, and never while the previous frame is still
/// waiting for its `wl_surface.frame` callback.
///
/// This is the policy of foot's `render.c` (a dirty flag plus one outstanding frame callback): bursts of
/// changes coalesce into one frame, the compositor paces us, and an idle screen costs nothing. A hidden screen
/// gets no callbacks and therefore stays quietly dirty without holding up any other screen.
///
/// Whatever the pacing, nothing is drawn while the compositor has not yet processed the previous commit (a
/// `wl_display.sync` sent after it has not come back): a stopped or stalled compositor then costs nothing. Mesa's
/// `eglSwapBuffers` would otherwise wait there for its own sync of the previous swap, blocking the display thread,
/// and commits piled up unread would fill the socket, which libwayland 1.21 treats as a fatal error.
public struct FrameScheduler: Equatable, Sendable {
    public private(set) var isDirty = true
    public private(set) var awaitsFrameCallback = false
    /// The last commit is not yet known to be processed by the compositor.
    public private(set) var awaitsCompositor = false

    public init() {}

    /// Something visible changed.
    public mutating func invalidate() { isDirty = true }

    public var shouldRender: Bool { isDirty && !awaitsFrameCallback && !awaitsCompositor }

    /// Whether to draw now under `pacing` (``FramePacing/deadline`` also waits for its time, which the screen keeps).
    public func shouldRender(_ pacing: FramePacing) -> Bool {
        pacing == .frame ? shouldRender : isDirty && !awaitsCompositor
    }

    /// Whether a configure may be answered with a frame now (whatever the pacing, but not past a commit the
    /// compositor has not processed).
    public var mayCommit: Bool { !awaitsCompositor }

    /// A frame was committed with a frame callback requested.
    public mutating func didRender() {
        isDirty = false
        awaitsFrameCallback = true
    }

    /// A sync was sent after the commit: draw nothing more until ``compositorCaughtUp()``.
    public mutating func awaitCompositor() { awaitsCompositor = true }

    /// The compositor has processed every commit (the sync came back), or the surface it was about is gone.
    public mutating func compositorCaughtUp() { awaitsCompositor = false }

    /// The compositor is ready for the next frame.
    public mutating func frameDone() { awaitsFrameCallback = false }

    /// Its content was drawn as part of another surface (one window spanning every output, under cage).
    public mutating func drawnElsewhere() { isDirty = false }

    /// The surface was recreated or reconfigured and its callback is gone: draw as soon as possible (once the
    /// compositor has caught up with the previous commit).
    public mutating func reset() {
        isDirty = true
        awaitsFrameCallback = false
    }
}
