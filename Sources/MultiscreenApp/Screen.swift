import FrameTiming
import Glibc
import Logging
import Messaging
import Outputs
import Rendering
import Screens
import Wayland

/// One output's fullscreen window and how it draws into it. What it shows (its ``ScreenKind``) is not stored here:
/// it is derived from the product's role assignment whenever it is needed. When it may draw, and what became of the
/// frames it committed, is its ``timeline``.
///
/// Owns, in order of creation: the ``ToplevelWindow``, the ``WindowSurface`` (after the first configure) or the
/// mirror's subsurface, and the ``FrameTimeline``'s outstanding requests. ``tearDown(context:)`` destroys them in
/// reverse. Only ``ScreenSet`` opens and tears down screens.
final class Screen {
    private(set) var output: OutputInfo
    private(set) var summary: ScreenSummary
    private(set) var background: RGBColor
    private(set) var window: ToplevelWindow?
    private var surface: WindowSurface?
    /// How frames reach the surface now (``FrameRoute``), and the subsurface a shared-frame mirror shows its frame on.
    private(set) var route = FrameRoute.window
    private var mirrorLayer: MirrorLayer?
    /// The shared frames this screen's surfaces show (to retire their buffers when it stops). Keeps the pool alive
    /// while it does: the pool of a screen that no longer draws for identical screens goes with the last one showing
    /// its frames.
    private var sharedPool: SharedFramePool?
    /// The number of the shared picture the window's surface shows (``SharedFramePool/framesWritten`` when it was
    /// published): the next picture of the same pool damages only the rows that changed.
    private var shownPicture: Int?
    /// The frames this external screen draws when identical screens show its frame (``SharedPicture``): made by the
    /// window arrangement when the screen leads such a group, dropped when it stops.
    var leaderPool: SharedFramePool?
    /// The picture in ``leaderPool``'s newest frame: what identical screens may show of it.
    var leaderPicture: SharedPicture?
    /// The geometry the surface's buffer scale, viewport and opaque region are set for (nil: set them again).
    private var appliedGeometry: SurfaceGeometry?
    private(set) var geometry: SurfaceGeometry?
    /// The size of the latest `xdg_toplevel.configure` (0 = "you decide"); nil until the first one.
    /// xdg-shell: "the client must not attach a buffer before the first configure" (xdg_surface error
    /// `unconfigured_buffer`), so there is no ``geometry`` — and nothing is drawn — until then, whatever output
    /// changes arrive between `open` and the first configure.
    private var configuredSize: (width: Int32, height: Int32)?
    private var fractionalScale120: UInt32?
    /// The geometry of the last committed frame: what the surface's buffer scale, viewport and opaque region
    /// were set for.
    private var committedGeometry: SurfaceGeometry?
    private let logger: Logger
    /// When this screen may draw, and what became of its frames.
    let timeline: FrameTimeline

    /// Asked to close by the compositor; the application reopens it later.
    var onClose: () -> Void = {}
    /// A configure arrived with this size (logical; 0 = "you decide"): lets the application notice a compositor
    /// that shows one window across all outputs (cage).
    var onConfigureSize: (Int32, Int32) -> Void = { _, _ in }

    init(
        output: OutputInfo, summary: ScreenSummary, background: RGBColor, flash: FlashPatch? = nil,
        pacing: FramePacing = .frame, logger: Logger
    ) {
        self.output = output
        self.summary = summary
        self.background = background
        self.logger = logger
        timeline = FrameTimeline(flash: flash, pacing: pacing, logger: logger)
    }

    var isOpen: Bool { window != nil }

    /// Whether the compositor shows this screen's frames (``ScreenSet`` sets it).
    var health = ScreenHealth.ok
    /// Whether the screen is on, as its schedule last said, and how it was turned off (``ScreenSet/syncPower``).
    var power = ScreenPower.on
    var powerMethod: PowerMethod?

    /// Something this screen shows changed.
    func invalidate() { timeline.invalidate() }

    /// Whether the current window has committed a frame yet.
    var hasCommitted: Bool { committedGeometry != nil }

    /// Creates the fullscreen window on `wlOutput`.
    func open(globals: WaylandGlobals, on wlOutput: Output?, appID: String) {
        let window = ToplevelWindow(
            globals: globals, fullscreenOn: wlOutput, appID: appID, title: ScreenSummary.windowTitle(for: output))
        window.onConfigure = { [unowned self] width, height, serial in
            configure(width: width, height: height, serial: serial)
        }
        window.onClose = { [unowned self] in onClose() }
        window.onPreferredScale = { [unowned self] scale in
            guard fractionalScale120 != scale else { return }
            fractionalScale120 = scale
            resolveGeometry()
        }
        // A screen off by schedule keeps nothing awake, in a window made again as in the first.
        if power == .scheduledOff { window.inhibitIdle(false, globals: globals) }
        self.window = window
        timeline.reset()
        invalidate()
    }

    /// Output properties or the screen's place among screens changed.
    func update(output: OutputInfo, summary: ScreenSummary, background: RGBColor) {
        let titleChanged = output.displayName != self.output.displayName
        let changed = output != self.output || summary != self.summary || background != self.background
        self.output = output
        self.summary = summary
        self.background = background
        if titleChanged { window?.setTitle(ScreenSummary.windowTitle(for: output)) }
        if changed {
            // A scale change may not come with a configure (same logical size): resolve the buffer again here.
            resolveGeometry()
            invalidate()
        }
    }

    private var pendingSerial: UInt32?

    private func configure(width: Int32, height: Int32, serial: UInt32) {
        onConfigureSize(width, height)
        configuredSize = (width, height)
        pendingSerial = serial
        resolveGeometry()
        // Answer every configure with a commit right away: sway applies a configure in a transaction that waits for
        // every affected client's commit, up to 200 ms, so an ack without a commit stalls the whole output for that
        // long. Drawing now, ignoring a pending frame callback, is that commit.
        timeline.reset()
    }

    private func resolveGeometry() {
        guard let configuredSize else { return }
        let fractional = window?.viewport != nil ? fractionalScale120 : nil
        let new = SurfaceGeometry.resolve(
            configuredWidth: configuredSize.width, configuredHeight: configuredSize.height, output: output,
            fractionalScale120: fractional)
        if new != geometry {
            geometry = new
            invalidate()
        }
    }

    /// Draws and commits a frame if the timeline says so (or a configure waits for its commit).
    @discardableResult
    func renderIfNeeded(
        context: GraphicsContext, canvas: () throws -> Canvas, globals: WaylandGlobals,
        route: FrameRoute = .window, shared: SharedFrames? = nil, draw: (Canvas, SurfaceGeometry) -> Void
    ) -> Bool {
        guard let window, let geometry, timeline.mayDraw(answeringConfigure: pendingSerial != nil) else { return false }
        // The pool whose frame the surface shows now stays until the new one is committed, even when this pass moves
        // the screen to another pool and that was the last screen holding it.
        let shownBefore = sharedPool
        defer { withExtendedLifetime(shownBefore) {} }
        // Shared frames: the controller waits while the compositor holds every frame (a `release` wakes the loop),
        // unless a configure waits for its answer.
        var frame: ShmFrame?
        if route == .sharedFrame, let shared {
            frame = shared.pool.acquire(width: geometry.bufferWidth, height: geometry.bufferHeight)
            if frame == nil && pendingSerial == nil { return false }
        }
        let drawStarted = timeline.drawStarts()
        if let serial = pendingSerial {
            window.acknowledge(serial: serial)
            pendingSerial = nil
        }
        do {
            if route != self.route { switchRoute(to: route, context: context, shared: shared) }
            let carriesMessages: Bool
            let withFeedback: Bool
            switch route {
            case .window, .mirrorByCopy:
                (carriesMessages, withFeedback) = try drawIntoWindowSurface(
                    window: window, geometry: geometry, context: context, canvas: canvas, globals: globals,
                    draw: draw)
            case .sharedFrame:
                guard let shared, let frame else {
                    // Every frame held and a configure to answer: answer it now, draw after a release.
                    window.commit()
                    return false
                }
                (carriesMessages, withFeedback) = try drawIntoSharedFrame(
                    frame, shared: shared, window: window, geometry: geometry, context: context, canvas: canvas,
                    globals: globals, draw: draw)
            case .sharedIdentical:
                guard let shared, let frame = shared.pool.latest, let surface = window.surface else {
                    window.commit()
                    return false
                }
                applySurfaceState(window: window, geometry: geometry, globals: globals)
                show(frame, of: shared.pool, on: surface)
                carriesMessages = timeline.carriesMessages
                withFeedback = timeline.requestFrameAndFeedback(window: window, globals: globals)
                window.commit()
            case .sharedMirror:
                carriesMessages = timeline.carriesMessages
                if let shared { showSharedFrame(shared.pool, window: window, geometry: geometry, globals: globals) }
                withFeedback = timeline.requestFrameAndFeedback(window: window, globals: globals)
                window.commit()
            }
            timeline.committed(
                on: output.displayName, drawStarted: drawStarted, carriesMessages: carriesMessages,
                withFeedback: withFeedback, globals: globals)
            if geometry != committedGeometry {
                let first = committedGeometry == nil ? "first frame " : ""
                logger.info(
                    "\(first)committed on \(output.displayName): buffer \(geometry.bufferWidth)x\(geometry.bufferHeight) scale \(geometry.bufferScale)"
                )
                committedGeometry = geometry
            }
        } catch {
            logger.error("cannot draw \(output.displayName): \(error)")
            // Still answer the configure, so the compositor does not wait for us.
            window.commit()
            return false
        }
        return true
    }

    /// Draws with EGL into the window's own surface and swaps (which commits).
    /// - Returns: whether the frame carries messages, and whether feedback was requested for it.
    private func drawIntoWindowSurface(
        window: ToplevelWindow, geometry: SurfaceGeometry, context: GraphicsContext, canvas: () throws -> Canvas,
        globals: WaylandGlobals, draw: (Canvas, SurfaceGeometry) -> Void
    ) throws -> (Bool, Bool) {
        if surface == nil {
            surface = try WindowSurface(
                context: context, surface: window.surface, width: geometry.bufferWidth, height: geometry.bufferHeight)
        }
        guard let surface else { return (false, false) }
        applySurfaceState(window: window, geometry: geometry, globals: globals)
        surface.resize(width: geometry.bufferWidth, height: geometry.bufferHeight)
        guard context.makeCurrent(surface.eglSurface) else {
            logger.error("eglMakeCurrent failed for \(output.displayName)")
            throw RenderingError.egl(call: "eglMakeCurrent", code: 0)
        }
        let canvas = try canvas()
        draw(canvas, geometry)
        let carriesMessages = timeline.drawFlashPatch(on: canvas, geometry: geometry)
        let withFeedback = timeline.requestFrameAndFeedback(window: window, globals: globals)
        if !surface.swap(context: context) {
            logger.error("eglSwapBuffers failed for \(output.displayName)")
        }
        return (carriesMessages, withFeedback)
    }

    /// Draws into a framebuffer object, reads it back into `frame` (one no surface holds), publishes it to the
    /// mirrors and attaches it to the window's own surface: no `eglSwapBuffers`, so a compositor that stops reading
    /// cannot block the display thread inside Mesa.
    private func drawIntoSharedFrame(
        _ frame: ShmFrame, shared: SharedFrames, window: ToplevelWindow, geometry: SurfaceGeometry,
        context: GraphicsContext, canvas: () throws -> Canvas, globals: WaylandGlobals,
        draw: (Canvas, SurfaceGeometry) -> Void
    ) throws -> (Bool, Bool) {
        applySurfaceState(window: window, geometry: geometry, globals: globals)
        guard let surface = window.surface, context.makeCurrent(nil) else {
            throw RenderingError.egl(call: "eglMakeCurrent (no surface) for \(output.displayName)", code: 0)
        }
        // The canvas first (it may need the context to compile its programs), then the framebuffer object, which
        // stays the target of drawing only until the read-back: window surfaces drawn next draw into themselves.
        let canvas = try canvas()
        defer { shared.offscreen.unbind() }
        guard shared.offscreen.bind(width: geometry.bufferWidth, height: geometry.bufferHeight) else {
            throw RenderingError.egl(call: "framebuffer object for \(output.displayName)", code: 0)
        }
        canvas.flipsVertically = true
        defer { canvas.flipsVertically = false }
        draw(canvas, geometry)
        let carriesMessages = timeline.drawFlashPatch(on: canvas, geometry: geometry)
        shared.offscreen.read(into: frame.pixelsForWriting())
        shared.pool.publish(frame)
        show(frame, of: shared.pool, on: surface)
        let withFeedback = timeline.requestFrameAndFeedback(window: window, globals: globals)
        window.commit()
        return (carriesMessages, withFeedback)
    }

    /// Attaches `frame` of `pool` to the window's surface, damaging only the rows that differ from the frame it
    /// showed when that is the one before in the same pool. Its buffers of a pool it showed before go, each once the
    /// compositor released it.
    private func show(_ frame: ShmFrame, of pool: SharedFramePool, on surface: OpaquePointer) {
        if pool !== sharedPool {
            sharedPool?.retire(surface: surface)
            sharedPool = pool
            shownPicture = nil
        }
        frame.attach(to: surface, rows: pool.rowsToDamage(showing: frame, after: shownPicture))
        shownPicture = frame === pool.latest ? pool.framesWritten : nil
    }

    /// A mirror: the pool's newest frame on the subsurface, fitted into the output with black around it.
    private func showSharedFrame(
        _ pool: SharedFramePool, window: ToplevelWindow, geometry: SurfaceGeometry, globals: WaylandGlobals
    ) {
        sharedPool = pool
        if mirrorLayer == nil { mirrorLayer = MirrorLayer(globals: globals, window: window) }
        guard let layer = mirrorLayer, let frame = pool.latest else { return }
        let bounds = Rect(x: 0, y: 0, width: Float(geometry.logicalWidth), height: Float(geometry.logicalHeight))
        let fitted = bounds.fitting(aspect: Float(frame.width) / Float(max(frame.height, 1)))
        layer.show(
            frame, x: Int32(fitted.x.rounded()), y: Int32(fitted.y.rounded()),
            width: max(Int32(fitted.width.rounded()), 1), height: max(Int32(fitted.height.rounded()), 1),
            outputWidth: geometry.logicalWidth, outputHeight: geometry.logicalHeight, pool: pool)
    }

    /// On the shared-frame mirror route, what the screen shows over black: the controller's newest frame, and where
    /// (logical coordinates, as ``showSharedFrame(_:window:geometry:globals:)`` places it).
    var sharedMirrorPicture: (frame: ShmFrame, at: Rect)? {
        guard route == .sharedMirror, let frame = sharedPool?.latest, let geometry else { return nil }
        let bounds = Rect(x: 0, y: 0, width: Float(geometry.logicalWidth), height: Float(geometry.logicalHeight))
        let fitted = bounds.fitting(aspect: Float(frame.width) / Float(max(frame.height, 1)))
        return (
            frame,
            Rect(
                x: fitted.x.rounded(), y: fitted.y.rounded(), width: max(fitted.width.rounded(), 1),
                height: max(fitted.height.rounded(), 1))
        )
    }

    /// Sets the window surface's buffer scale, opaque region and viewport when the geometry changed (surface state
    /// is double-buffered and sticks: set it only then).
    private func applySurfaceState(window: ToplevelWindow, geometry: SurfaceGeometry, globals: WaylandGlobals) {
        guard geometry != appliedGeometry else { return }
        window.setBufferScale(geometry.bufferScale)
        window.setOpaque(width: geometry.logicalWidth, height: geometry.logicalHeight, compositor: globals.compositor)
        if geometry.usesViewport {
            window.setViewportDestination(width: geometry.logicalWidth, height: geometry.logicalHeight)
        }
        appliedGeometry = geometry
    }

    /// Leaves the current route: what the old one attached goes (the EGL surface, or this window's shared buffers
    /// and the mirror's subsurface), and the surface state is set again by the next route.
    private func switchRoute(to route: FrameRoute, context: GraphicsContext, shared: SharedFrames?) {
        let from = self.route
        logger.info("\(output.displayName): frames \(from.rawValue) → \(route.rawValue)")
        if !route.usesWindowSurface {
            surface?.destroy(context: context)
            surface = nil
        }
        if from == .sharedMirror {
            mirrorLayer?.destroy(pool: sharedPool)
            mirrorLayer = nil
            window?.clearViewportDestination()
        }
        if from.showsSharedFrames {
            sharedPool?.retire(surface: window?.surface)
            sharedPool = nil
            shownPicture = nil
        }
        appliedGeometry = nil
        self.route = route
    }

    /// Destroys everything in reverse order of creation; the screen can be opened again afterwards.
    func tearDown(context: GraphicsContext) {
        timeline.tearDown()
        surface?.destroy(context: context)
        surface = nil
        // A mirror's subsurface before the window it sits on; the buffers go once the compositor released them.
        mirrorLayer?.destroy(pool: sharedPool)
        mirrorLayer = nil
        sharedPool?.retire(surface: window?.surface)
        sharedPool = nil
        shownPicture = nil
        leaderPool = nil
        leaderPicture = nil
        route = .window
        appliedGeometry = nil
        window?.destroy()
        window = nil
        geometry = nil
        committedGeometry = nil
        pendingSerial = nil
        configuredSize = nil
    }
}
