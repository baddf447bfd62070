import Glibc
import Logging
import Messaging
import Outputs
import Rendering
import Screens
import Wayland

/// One output's fullscreen window and everything needed to draw it. What it shows (its ``ScreenKind``) is not
/// stored here: it is derived from the product's role assignment whenever it is needed.
///
/// Owns, in order of creation: the ``ToplevelWindow``, the ``WindowSurface`` (after the first configure),
/// the outstanding frame callback and presentation feedbacks. ``tearDown(context:)`` destroys them in reverse.
/// Only ``ScreenSet`` opens and tears down screens.
final class Screen {
    private(set) var output: OutputInfo
    private(set) var summary: ScreenSummary
    private(set) var background: RGBColor
    private(set) var window: ToplevelWindow?
    private var surface: WindowSurface?
    /// How frames reach the surface now (``FrameRoute``), and the subsurface a shared-frame mirror shows its frame on.
    private(set) var route = FrameRoute.window
    private var mirrorLayer: MirrorLayer?
    /// The shared frames this screen's surfaces have shown (to retire their buffers when it stops).
    private var sharedPool: SharedFramePool?
    /// The geometry the surface's buffer scale, viewport and opaque region are set for (nil: set them again).
    private var appliedGeometry: SurfaceGeometry?
    /// Outstanding frame callbacks by frame number: under `immediate` and `deadline` pacing a frame may be
    /// committed before the previous one's callback came, and each callback still says when its frame was taken.
    private var frameCallbacks: [UInt64: FrameCallback] = [:]
    private var feedbacks: [ObjectIdentifier: PresentationFeedback] = [:]
    /// The `wl_display.sync` sent after the last commit: until it comes back nothing more is drawn (see
    /// ``FrameScheduler``), so a hung compositor can neither block us in `eglSwapBuffers` nor get a pile of commits.
    private var compositorSync: FrameCallback?
    private(set) var scheduler = FrameScheduler()
    private(set) var statistics = FrameStatistics()
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
    private var compositorSendsPresented = false
    private let logger: Logger
    /// Message → shown, per message: which frame first shows each message and when it was shown.
    private var latencyTracker = MessageLatencyTracker()
    /// The last minute's message latency and the totals, for `status` and the controller UI.
    private(set) var latency = ScreenLatency()
    /// Counts commits, so feedback and frame callbacks name the frame they belong to.
    private var frameNumber: UInt64 = 0
    /// Photodiode mode: the patch, its colour now, and the colour each frame carrying messages gave it.
    private let flash: FlashPatch?
    private let pacing: FramePacing
    /// `deadline` pacing: when the pending change is to be drawn (`CLOCK_MONOTONIC`), and what predicts it.
    private(set) var drawAt: UInt64?
    private var predictor = DeadlinePredictor()
    /// Commit times (`CLOCK_MONOTONIC`) of recent frames, for the predictor's commit → presented.
    private var commitTimes: [UInt64: UInt64] = [:]
    private var patchWhite = false
    private var patchByFrame: [UInt64: Bool] = [:]

    /// A frame that carried messages was shown (presented, or the frame-done fallback), or messages were lost.
    var onLatencyReport: (FrameLatencyReport) -> Void = { _ in }

    /// Asked to close by the compositor; the application reopens it later.
    var onClose: () -> Void = {}
    /// A configure arrived with this size (logical; 0 = "you decide"): lets the application notice a compositor
    /// that shows one window across all outputs (cage).
    var onConfigureSize: (Int32, Int32) -> Void = { _, _ in }

    /// More feedback objects than this in flight means the compositor is not answering them (sway 1.7 headless
    /// never sends `presented` for some frames): stop asking rather than pile them up.
    static let maximumOutstandingFeedbacks = 4
    /// Frame callbacks kept outstanding at most (more only pile up where the compositor sends none).
    static let maximumOutstandingCallbacks = 8

    init(
        output: OutputInfo, summary: ScreenSummary, background: RGBColor, flash: FlashPatch? = nil,
        pacing: FramePacing = .frame, logger: Logger
    ) {
        self.flash = flash
        self.pacing = pacing
        self.output = output
        self.summary = summary
        self.background = background
        self.logger = logger
    }

    var isOpen: Bool { window != nil }

    /// Since when (``MonotonicClock`` ns) this screen has had content the compositor has not shown yet: set when
    /// content changes, cleared when a frame callback says the compositor showed what was committed. What
    /// ``ScreenSet`` judges staleness by.
    private(set) var unshownSince: UInt64?
    /// When the compositor last showed a frame of this screen (frame callback; ``MonotonicClock`` ns).
    private(set) var lastShownAt: UInt64?
    /// When this screen's newest frame was committed (``MonotonicClock``): where a web page's frame leaves us.
    private(set) var lastCommittedAt: UInt64?
    /// Whether the compositor shows this screen's frames (``ScreenSet`` sets it).
    var health = ScreenHealth.ok
    /// The compositor showed a frame (a frame callback arrived).
    var onShown: () -> Void = {}

    /// Something this screen shows changed.
    func invalidate() {
        scheduler.invalidate()
        if unshownSince == nil { unshownSince = MonotonicClock.nanoseconds() }
    }

    var needsDrawing: Bool { scheduler.isDirty }

    /// Drawn inside the spanning window instead of a window of its own (which answers for its showing).
    func drawnElsewhere() {
        scheduler.drawnElsewhere()
        // The spanning window's own screen follows these messages to its frames.
        latencyTracker.forgetWaiting()
        unshownSince = nil
    }

    /// A new message arrived: redraw unless this screen is blank. Every other kind shows it somehow: the controller
    /// in its log, `messages` as the newest message, `card` without a card as messages, `mirror` through the
    /// controller it mirrors.
    /// - Parameter message: the message's id and its enqueue and drain times (``MonotonicClock``), so the frame that
    ///   first shows it can report message-to-commit latency.
    func messageArrived(_ message: (id: UInt64, enqueuedAt: UInt64, drainedAt: UInt64), kind: ScreenKind) {
        // A blank screen shows no message, but its flash patch does.
        guard kind != .external(.blank) || flash != nil else { return }
        invalidate()
        report(
            latencyTracker.messageArrived(
                PendingMessage(id: message.id, enqueuedAt: message.enqueuedAt, drainedAt: message.drainedAt)))
        // Keep the oldest message waiting for a frame: a burst reports its worst latency, not its best.
        if pendingMessage == nil {
            pendingMessage = message
            arrivedBehindFrame = scheduler.awaitsFrameCallback || scheduler.awaitsCompositor
            frameReadyAt = nil
        }
    }

    private var pendingMessage: (id: UInt64, enqueuedAt: UInt64, drainedAt: UInt64)?
    /// Whether the pending message found this screen's previous frame still in flight (its frame callback or the
    /// compositor's sync not back yet), and when this screen became free to draw again: where the message's wait
    /// went, for the latency log line.
    private var arrivedBehindFrame = false
    private var frameReadyAt: UInt64?

    /// A message arrived that this screen's next frame shows.
    var waitsToShowMessage: Bool { pendingMessage != nil }

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
        self.window = window
        scheduler.reset()
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
        scheduler.reset()
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

    /// Draws and commits a frame if the scheduler says so (or a configure waits for its commit).
    @discardableResult
    func renderIfNeeded(
        context: GraphicsContext, canvas: () throws -> Canvas, globals: WaylandGlobals,
        route: FrameRoute = .window, shared: SharedFrames? = nil, draw: (Canvas, SurfaceGeometry) -> Void
    ) -> Bool {
        guard let window, let geometry, scheduler.mayCommit else { return false }
        // A configure is answered at once, whatever the pacing.
        if pendingSerial == nil {
            guard scheduler.shouldRender(pacing) else { return false }
            if pacing == .deadline {
                let now = MonotonicClock.nanoseconds()
                let start = drawAt ?? predictor.drawStart(now: now)
                if start > now {
                    drawAt = start
                    return false
                }
            }
        }
        // Shared frames: the controller waits while the compositor holds every frame (a `release` wakes the loop),
        // unless a configure waits for its answer.
        var frame: ShmFrame?
        if route == .sharedFrame, let shared {
            frame = shared.pool.acquire(width: geometry.bufferWidth, height: geometry.bufferHeight)
            if frame == nil && pendingSerial == nil { return false }
        }
        drawAt = nil
        let drawStarted = MonotonicClock.nanoseconds()
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
            case .sharedMirror:
                carriesMessages = latencyTracker.waitingCount > 0
                if let shared { showSharedFrame(shared.pool, window: window, geometry: geometry, globals: globals) }
                withFeedback = requestFrameAndFeedback(window: window, globals: globals)
                window.commit()
            }
            // The frame is committed.
            awaitCompositor(globals: globals)
            let committedAt = MonotonicClock.nanoseconds()
            lastCommittedAt = committedAt
            predictor.drew(committedAt - drawStarted)
            commitTimes[frameNumber] = committedAt
            commitTimes = commitTimes.filter { $0.key + 16 > frameNumber }
            if flash != nil && carriesMessages { patchByFrame[frameNumber] = patchWhite }
            report(
                latencyTracker.committed(
                    frame: frameNumber, at: committedAt,
                    presentationClock: MonotonicClock.nanoseconds(clock: globals.presentationClock),
                    withFeedback: withFeedback))
            scheduler.didRender()
            if let message = pendingMessage {
                pendingMessage = nil
                let now = MonotonicClock.nanoseconds()
                // The drain → commit time split: waiting for the previous frame's callback (or sync), waiting for
                // the display thread (other screens drawn first, other work), and drawing this frame.
                let ready =
                    arrivedBehindFrame
                    ? min(max(frameReadyAt ?? drawStarted, message.drainedAt), drawStarted) : message.drainedAt
                logger.debug(
                    "latency: message #\(message.id) on \(output.displayName) committed at \(now) ns, enqueue→commit \(Self.milliseconds(between: message.enqueuedAt, now)) ms, drain→commit \(Self.milliseconds(between: message.drainedAt, now)) ms, queued \(Self.milliseconds(between: message.enqueuedAt, message.drainedAt)) ms, behind frame \(Self.milliseconds(between: message.drainedAt, ready)) ms, behind thread \(Self.milliseconds(between: ready, drawStarted)) ms, drawn \(Self.milliseconds(between: drawStarted, now)) ms"
                )
            }
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

    /// Sends a sync after the commit just made; drawing waits until it comes back. Sent after `eglSwapBuffers`, so
    /// its answer also means Mesa's own sync of that swap was answered and the buffers the compositor is done with
    /// were released (the answers come in order): the next swap finds what it waits for already read.
    private func awaitCompositor(globals: WaylandGlobals) {
        compositorSync?.cancel()
        let sentAt = MonotonicClock.nanoseconds()
        compositorSync = globals.requestSync { [unowned self] in
            compositorSync = nil
            scheduler.compositorCaughtUp()
            if !scheduler.awaitsFrameCallback { frameReadyAt = MonotonicClock.nanoseconds() }
            // A compositor that took this long to process a sync was not running (stopped, or stalled as a whole):
            // the time it lost is not this screen's staleness, which starts again now.
            let now = MonotonicClock.nanoseconds()
            if unshownSince != nil && now &- sentAt > Self.unresponsiveAfter { unshownSince = now }
        }
        if compositorSync != nil { scheduler.awaitCompositor() }
    }

    /// A sync not answered within this long (ns) means the compositor was not running meanwhile.
    static let unresponsiveAfter: UInt64 = 1_000_000_000

    /// The compositor has not yet processed this screen's last commit: it is not answering at all just now, which
    /// recreating the window would not help.
    var awaitsCompositor: Bool { scheduler.awaitsCompositor }

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
        let carriesMessages = drawFlashPatch(on: canvas, geometry: geometry)
        let withFeedback = requestFrameAndFeedback(window: window, globals: globals)
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
        let carriesMessages = drawFlashPatch(on: canvas, geometry: geometry)
        shared.offscreen.read(into: frame.pixelsForWriting())
        shared.pool.publish(frame)
        sharedPool = shared.pool
        frame.attach(to: surface)
        let withFeedback = requestFrameAndFeedback(window: window, globals: globals)
        window.commit()
        return (carriesMessages, withFeedback)
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

    /// Photodiode mode: the patch, flipped when this frame carries messages. - Returns: whether it does.
    private func drawFlashPatch(on canvas: Canvas, geometry: SurfaceGeometry) -> Bool {
        let carriesMessages = latencyTracker.waitingCount > 0
        guard let flash else { return carriesMessages }
        if carriesMessages { patchWhite.toggle() }
        let scale = Double(geometry.bufferWidth) / Double(max(geometry.logicalWidth, 1))
        let r = flash.rect(
            bufferWidth: Int(geometry.bufferWidth), bufferHeight: Int(geometry.bufferHeight), scale: scale)
        let white = RGBColor(red: 255, green: 255, blue: 255)
        let colour = patchWhite ? white : RGBColor(red: 0, green: 0, blue: 0)
        canvas.fill(x: r.x, y: r.y, width: r.width, height: r.height, color: colour)
        return carriesMessages
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
        if from == .sharedFrame || from == .sharedMirror { sharedPool?.retire(surface: window?.surface) }
        appliedGeometry = nil
        self.route = route
    }

    /// Requests the frame callback and, if not too many are outstanding, presentation feedback for the next commit
    /// (frame ``frameNumber`` + 1, which this makes current). - Returns: whether feedback was requested.
    private func requestFrameAndFeedback(window: ToplevelWindow, globals: WaylandGlobals) -> Bool {
        let committedAt = MonotonicClock.nanoseconds(clock: globals.presentationClock)
        let committedMonotonic = MonotonicClock.nanoseconds()
        frameNumber += 1
        let number = frameNumber
        let clock = PresentationClock(clockID: globals.presentationClock) { MonotonicClock.nanoseconds(clock: $0) }
        // A hidden surface gets no callbacks; under `immediate` and `deadline` pacing it still commits: keep the
        // newest few.
        while frameCallbacks.count >= Self.maximumOutstandingCallbacks, let oldest = frameCallbacks.keys.min() {
            frameCallbacks.removeValue(forKey: oldest)?.cancel()
        }
        frameCallbacks[number] = window.requestFrame { [unowned self] _ in
            frameCallbacks[number] = nil
            let now = MonotonicClock.nanoseconds()
            lastShownAt = now
            // The latest frame's callback is the one frame pacing waits for; only then is everything committed on
            // screen, and whatever changed since waits from now.
            if number == frameNumber {
                scheduler.frameDone()
                if !scheduler.awaitsCompositor { frameReadyAt = now }
                unshownSince = scheduler.isDirty ? now : nil
            }
            onShown()
            if !compositorSendsPresented {
                statistics.recordFrameDone(latencyNanoseconds: now - committedMonotonic)
            }
            report(latencyTracker.frameDone(frame: number, at: now))
        }
        var withFeedback = false
        if feedbacks.count < Self.maximumOutstandingFeedbacks {
            var created: PresentationFeedback?
            created = PresentationFeedback(presentation: globals.presentation, surface: window.surface) {
                [unowned self] outcome in
                if let created { feedbacks[ObjectIdentifier(created)] = nil }
                switch outcome {
                case .presented(let timing):
                    compositorSendsPresented = true
                    let nanoseconds = timing.timestampNanoseconds
                    statistics.recordPresented(
                        latencyNanoseconds: nanoseconds > committedAt ? nanoseconds - committedAt : 0)
                    latency.clock = PresentationClock.name(of: clock.clockID)
                    let presentedAt = clock.monotonic(fromPresentationClock: nanoseconds)
                    if let committed = commitTimes.removeValue(forKey: number) {
                        predictor.presented(
                            at: presentedAt, committedAt: committed,
                            refreshNanoseconds: UInt64(timing.refreshNanoseconds))
                    }
                    report(latencyTracker.presented(frame: number, presentedAt: presentedAt, timing: timing))
                case .discarded:
                    statistics.recordDiscarded()
                    let (discarded, redraw) = latencyTracker.discarded(frame: number)
                    report(discarded)
                    // Its messages lost their frame and no later one is committed yet: draw one.
                    if redraw { invalidate() }
                }
            }
            if let created {
                feedbacks[ObjectIdentifier(created)] = created
                withFeedback = true
            }
        }
        statistics.recordCommit(withFeedback: withFeedback && globals.presentation != nil)
        return withFeedback
    }

    private func report(_ report: FrameLatencyReport?) {
        guard var report else { return }
        if flash != nil {
            report.patchWhite = patchByFrame[report.frame]
            patchByFrame = patchByFrame.filter { $0.key > report.frame }
        }
        latency.record(report, missedVblanks: latencyTracker.vblanks.missed)
        onLatencyReport(report)
    }

    private func report(_ reports: [FrameLatencyReport]) {
        for each in reports { report(each) }
    }

    /// From `start` to `end` (``MonotonicClock`` ns), 0 if `end` is earlier: a message enqueued while the drain
    /// that takes it already runs is stamped after that drain's start.
    static func milliseconds(between start: UInt64, _ end: UInt64) -> String {
        milliseconds(end > start ? end - start : 0)
    }

    static func milliseconds(_ nanoseconds: UInt64) -> String {
        let tenths = nanoseconds / 10_000
        return "\(tenths / 100).\(tenths % 100 < 10 ? "0" : "")\(tenths % 100)"
    }

    /// Destroys everything in reverse order of creation; the screen can be opened again afterwards.
    func tearDown(context: GraphicsContext) {
        report(latencyTracker.tornDown())
        for feedback in feedbacks.values { feedback.cancel() }
        feedbacks.removeAll()
        for callback in frameCallbacks.values { callback.cancel() }
        frameCallbacks.removeAll()
        compositorSync?.cancel()
        compositorSync = nil
        scheduler.compositorCaughtUp()
        drawAt = nil
        surface?.destroy(context: context)
        surface = nil
        // A mirror's subsurface before the window it sits on; the buffers go once the compositor released them.
        mirrorLayer?.destroy(pool: sharedPool)
        mirrorLayer = nil
        sharedPool?.retire(surface: window?.surface)
        route = .window
        appliedGeometry = nil
        window?.destroy()
        window = nil
        geometry = nil
        committedGeometry = nil
        pendingSerial = nil
        configuredSize = nil
        scheduler.reset()
        unshownSince = nil
    }
}
