import FrameTiming
import Logging
import Messaging
import Outputs
import Product
import Rendering
import Screens
import Wayland

/// The screens, one per complete output, and the only place their windows are born and die: opened when an output
/// appears, torn down when it goes, reopened after the compositor closed one, all torn down at exit.
///
/// How screens map to windows is the ``WindowArrangement``: one fullscreen window each (``SeparateWindows``), or
/// one window across every output that draws each screen in its region (``SpanningWindow``, under cage). The set
/// starts with separate windows and switches when a configure shows the compositor spans windows.
final class ScreenSet {
    private(set) var screens: [UInt32: Screen] = [:]
    private var arrangement: any WindowArrangement = SeparateWindows()
    private let globals: WaylandGlobals
    let outputs: OutputSet
    private let appID: String
    /// The EGL context every window surface is made in (owned by ``Graphics``).
    private let context: GraphicsContext
    let logger: Logger
    /// Fires when windows the compositor closed are due to be opened again.
    private let reopenTimer: OneShotTimer
    private let reopenDelay: Double
    /// A screen's frame that carried messages was shown, or messages were lost (``FrameTimeline/onLatencyReport``).
    var onLatencyReport: (Screen, FrameLatencyReport) -> Void = { _, _ in }
    /// How long content may wait unshown before a screen counts as stale (sway 1.7 has been seen to stop presenting
    /// an output after a storm of mode changes, keeping an old frame, with no error to the client).
    static let staleAfter = 2.0
    /// The compositor showed a frame of a screen (its frame callback came): a web page on it may draw the next.
    var onFrameShown: (Screen, _ frame: UInt64) -> Void = { _, _ in }
    /// A screen's health changed (for the log's sake it is logged here; the caller publishes it).
    var onHealthChange: (Screen) -> Void = { _ in }
    /// Fires when a screen would become stale unless the compositor shows it before (``checkHealth()``).
    private let healthTimer: OneShotTimer
    /// Asks the compositor whether it runs, before a screen whose content waits unshown is judged.
    private let probe = CompositorProbe()

    /// Photodiode mode: the patch every screen draws (nil: none).
    let flash: FlashPatch?
    let pacing: FramePacing
    /// `deadline` pacing: wakes the loop when a screen's time to draw has come (the render pass that follows
    /// draws it); armed only while one waits.
    private let drawTimer: OneShotTimer
    /// The shared frames the controller draws into and its mirrors show, when the run's ``MirrorPath`` has them
    /// (owned by ``Graphics``).
    var sharedFrames: SharedFrames?
    /// Whether the mirrors show the controller's shared frame (no texture copy needed) in this arrangement.
    var mirrorsShareFrames: Bool { sharedFrames != nil && arrangement.canShareFrames }

    /// Its timers go on `loop` at once, for the set's whole life.
    init(
        globals: WaylandGlobals, outputs: OutputSet, context: GraphicsContext, loop: EventLoop, appID: String,
        reopenDelay: Double, flash: FlashPatch? = nil, pacing: FramePacing = .frame, logger: Logger
    ) throws {
        self.flash = flash
        self.pacing = pacing
        drawTimer = try OneShotTimer(on: loop)
        self.globals = globals
        self.outputs = outputs
        self.context = context
        self.appID = appID
        self.reopenDelay = reopenDelay
        self.logger = logger
        reopenTimer = try OneShotTimer(on: loop)
        healthTimer = try OneShotTimer(on: loop)
        reopenTimer.fired = { [unowned self] in reopenClosed() }
        healthTimer.fired = { [unowned self] in checkHealth() }
        // Nothing to do but wake the loop: the render pass that follows every wakeup draws what is due.
        drawTimer.fired = {}
    }

    /// The screens in output order (natural name order).
    var ordered: [Screen] { outputs.current.compactMap { screens[$0.registryName] } }

    /// Makes the screens match the complete outputs: tears down the screens of outputs that went away, opens
    /// windows for new ones, and refreshes every screen's summary (indices shift when outputs come and go).
    func sync() {
        let current = outputs.current
        for (name, screen) in screens where outputs[name] == nil {
            screen.tearDown(context: context)
            screens[name] = nil
            logger.info("screen closed: \(screen.output.displayName)")
        }
        for (index, info) in current.enumerated() {
            let summary = ScreenSummary(output: info, index: index, count: current.count)
            let background = ScreenPalette.background(forScreenAt: index)
            if let screen = screens[info.registryName] {
                screen.update(output: info, summary: summary, background: background)
                continue
            }
            let screen = Screen(
                output: info, summary: summary, background: background, flash: flash, pacing: pacing,
                logger: logger)
            screen.onClose = { [unowned self, unowned screen] in closed(screen) }
            screen.timeline.onLatencyReport = { [unowned self, unowned screen] report in
                onLatencyReport(screen, report)
            }
            screen.timeline.onShown = { [unowned self, unowned screen] frame in
                onFrameShown(screen, frame)
                guard screen.health != .ok else { return }
                logger.notice("\(screen.output.displayName): frames are shown again")
                screen.health = .ok
                onHealthChange(screen)
            }
            screen.onConfigureSize = { [unowned self, unowned screen] width, height in
                detectSpanning(screen, width: width, height: height)
            }
            screens[info.registryName] = screen
        }
        arrangement = arrangement.adjusted(to: self)
        for screen in ordered where !screen.isOpen && arrangement.hasOwnWindow(screen) { open(screen) }
        if current.isEmpty { logger.info("no outputs: waiting for one") }
    }

    /// The screen whose window is `surface`.
    func screen(of surface: SurfaceID?) -> Screen? {
        guard let surface else { return nil }
        return screens.values.first { $0.window?.id == surface }
    }

    // MARK: - Hit-testing

    /// The screen shown at a point of `surface`, and where in that screen the point lies (a spanning window holds
    /// every screen).
    func target(of surface: SurfaceID?, x: Double, y: Double) -> (screen: Screen, x: Double, y: Double)? {
        guard let screen = screen(of: surface) else { return nil }
        return arrangement.target(in: screen, x: x, y: y, of: self)
    }

    /// The screen shown at a point of `surface`, named for ``WebScreens``' input routing.
    func pageTarget(_ surface: SurfaceID?, _ x: Double, _ y: Double) -> (
        name: UInt32, displayName: String, x: Double, y: Double
    )? {
        target(of: surface, x: x, y: y).map {
            ($0.screen.output.registryName, $0.screen.output.displayName, $0.x, $0.y)
        }
    }

    /// Where a press at surface-local (logical) coordinates lands in the drawing of the screen shown there: the point
    /// in buffer pixels and the buffer's size, what the controller UI's layout is hit-tested in.
    func bufferPoint(of surface: SurfaceID?, x: Double, y: Double) -> (
        screen: Screen, x: Float, y: Float, width: Float, height: Float
    )? {
        guard let target = target(of: surface, x: x, y: y), let geometry = drawingGeometry(of: target.screen)
        else { return nil }
        let sx = Float(geometry.bufferWidth) / Float(max(geometry.logicalWidth, 1))
        let sy = Float(geometry.bufferHeight) / Float(max(geometry.logicalHeight, 1))
        return (
            target.screen, Float(target.x) * sx, Float(target.y) * sy, Float(geometry.bufferWidth),
            Float(geometry.bufferHeight)
        )
    }

    /// The geometry `screen`'s content is drawn at: its own window's, or its region of a spanning window.
    func drawingGeometry(of screen: Screen) -> SurfaceGeometry? { arrangement.drawingGeometry(of: screen, in: self) }

    /// Whether the screen's content has reached the compositor at least once.
    func hasShown(_ screen: Screen) -> Bool { arrangement.hasShown(screen, in: self) }

    // MARK: - Drawing

    /// Puts a step's ``ScreenUpdates`` into effect: the screens it names draw again, and those that follow its
    /// message (`stamp`: its id, enqueue and drain times) to the frame that first shows it start following it.
    func apply(_ updates: ScreenUpdates, message stamp: (id: UInt64, enqueuedAt: UInt64, drainedAt: UInt64)?) {
        for name in updates.redraws { screens[name]?.invalidate() }
        guard let stamp else { return }
        for (name, kind) in updates.messageFollowers { screens[name]?.timeline.messageArrived(stamp, kind: kind) }
    }

    /// Draws every screen that needs it, then arms the timers for what the pass left waiting. `controller` is the
    /// controller's output, `kind` says what each screen shows, `showsMessage` whether its next frame shows a
    /// message; `draw` draws one screen's content.
    /// - Returns: how many windows were committed.
    func render(
        canvas: () throws -> Canvas, controller: UInt32?, kind: (Screen) -> ScreenKind,
        showsMessage: (Screen) -> Bool = { $0.timeline.waitsToShowMessage },
        picture: (Screen, SurfaceGeometry) -> SharedPicture? = { _, _ in nil },
        draw: (Screen, Canvas, SurfaceGeometry) -> Void
    ) -> Int {
        let drawn = arrangement.render(
            self, context: context, canvas: canvas, globals: globals, controller: controller, kind: kind,
            showsMessage: showsMessage, picture: picture, draw: draw)
        scheduleHealthCheck()
        scheduleDraw()
        return drawn
    }

    /// `deadline` pacing: arms ``drawTimer`` for the earliest time a screen waits to draw at (`CLOCK_MONOTONIC`).
    private func scheduleDraw() {
        guard let at = screens.values.compactMap(\.timeline.drawAt).min() else { return }
        let now = MonotonicClock.nanoseconds()
        drawTimer.arm(for: at, after: Double(at > now ? at - now : 0) / 1e9)
    }

    /// What `status` reports about the screens: frames, latency, health, pacing.
    var vitals: Vitals {
        let now = MonotonicClock.nanoseconds()
        var vitals = Vitals(
            frames: screens.mapValues(\.timeline.statistics), latency: screens.mapValues(\.timeline.latency), now: now)
        vitals.pacing = pacing.rawValue
        vitals.flash = flash != nil
        vitals.framePaths = screens.filter { $0.value.isOpen }.mapValues(\.route.rawValue)
        vitals.powerMethods = screens.compactMapValues { $0.powerMethod?.rawValue }
        vitals.health = screens.mapValues { screen in
            (screen.health.rawValue, screen.timeline.lastShownAt.map { Double(now &- $0) / 1e9 })
        }
        return vitals
    }

    // MARK: - Health

    /// Arms ``healthTimer`` for when the next screen is due to be judged (``judgement(of:now:)``), whatever the
    /// compositor does (a stopped compositor answers nothing, and only this timer notices); disarms it when no screen
    /// waits, so an idle Multiscreen sleeps without a wakeup pending.
    private func scheduleHealthCheck() {
        let now = MonotonicClock.nanoseconds()
        guard let due = ordered.compactMap({ judgement(of: $0, now: now)?.due }).min() else {
            healthTimer.disarm()
            return
        }
        healthTimer.arm(for: due, after: due > now ? Double(due - now) / 1e9 : 0)
    }

    /// When a screen is due to be judged and, that time come, what it is judged to be (nil: nothing to judge, or ask
    /// the compositor first). Content that waits unshown is asked about (``CompositorProbe``) once it has waited
    /// ``staleAfter`` less ``FrameTimeline/unresponsiveAfter``, so that at ``staleAfter`` the answer is known: none,
    /// and the screen is `stale` (the compositor is stopped or hung, and a new window would wait like the old one);
    /// one in time, and the window is recreated (`recovering`) or, recreated already, given up on (`failed`). A stale
    /// screen stays under judgement: a compositor that answers again but still shows nothing of it gets it recreated.
    private func judgement(of screen: Screen, now: UInt64) -> (due: UInt64, health: ScreenHealth?)? {
        guard screen.isOpen, screen.power == .on, screen.health != .failed, let since = screen.timeline.unshownSince
        else { return nil }
        let askFrom = since &+ UInt64(Self.staleAfter * 1e9) &- FrameTimeline.unresponsiveAfter
        let judgeFrom = since &+ UInt64(Self.staleAfter * 1e9)
        guard now >= askFrom else { return (askFrom, nil) }
        switch probe.verdict(askFrom: askFrom, judgeFrom: judgeFrom, now: now) {
        case .ask: return (now, nil)
        case .waitUntil(let due): return (due, nil)
        // Judged once; the probe's answer, whenever it comes, re-arms the check.
        case .notAnswering: return screen.health == .stale ? nil : (now, .stale)
        case .running: return (now, screen.health == .recovering ? .failed : .recovering)
        }
    }

    /// Judges every screen whose time has come (``judgement(of:now:)``), asking the compositor first where that is
    /// what decides.
    private func checkHealth() {
        let now = MonotonicClock.nanoseconds()
        for screen in ordered {
            guard let (due, judged) = judgement(of: screen, now: now), due <= now else { continue }
            guard let health = judged else {
                probe.ask(globals: globals, now: now) { [unowned self] late in
                    // A compositor that was not running lost that time for every screen.
                    if late { for screen in ordered { screen.timeline.unshownWaitStartsNow() } }
                    scheduleHealthCheck()
                }
                continue
            }
            switch health {
            case .stale:
                logger.warning(
                    "\(screen.output.displayName): nothing shown for \(Self.staleAfter) s although content waits: the compositor does not answer (stopped or hung); stale until it shows a frame"
                )
            case .recovering:
                logger.warning(
                    "\(screen.output.displayName): nothing shown for \(Self.staleAfter) s although content waits and the compositor answers: it stopped presenting it; recreating its window"
                )
                screen.tearDown(context: context)
                open(screen)
            case .failed:
                logger.error(
                    "\(screen.output.displayName): still nothing shown after its window was recreated; waiting for the compositor"
                )
            case .ok:
                continue
            }
            screen.health = health
            onHealthChange(screen)
        }
        scheduleHealthCheck()
    }

    /// Destroys every window (reverse order of the outputs); the screens are forgotten.
    func tearDownAll() {
        probe.cancel()
        for screen in ordered.reversed() { screen.tearDown(context: context) }
        screens.removeAll()
    }

    /// Opens the windows the compositor closed, once the reopen delay has passed.
    private func reopenClosed() {
        for screen in ordered where !screen.isOpen && arrangement.hasOwnWindow(screen) {
            open(screen)
            logger.info("screen reopened: \(screen.output.displayName)")
        }
    }

    private func open(_ screen: Screen) {
        screen.open(globals: globals, on: outputs.output(screen.output.registryName), appID: appID)
        logger.info("screen opened: \(screen.output.displayName)")
    }

    private func closed(_ screen: Screen) {
        logger.warning(
            "compositor closed the window on \(screen.output.displayName); reopening in \(reopenDelay) s")
        screen.tearDown(context: context)
        reopenTimer.arm(after: reopenDelay)
    }

    /// A window asked to be fullscreen on one output was configured to the size of the whole layout instead: the
    /// compositor spans it across every output and shows only one window at a time (cage). From now on that window
    /// draws every screen.
    private func detectSpanning(_ screen: Screen, width: Int32, height: Int32) {
        guard arrangement is SeparateWindows, outputs.current.count > 1 else { return }
        let bounds = LayoutBounds(outputs.current)
        let own = screen.output.logicalSize
        guard width == bounds.width, height == bounds.height, width != own.width || height != own.height else {
            return
        }
        logger.notice(
            "one window spans every output (\(width)x\(height), e.g. cage): drawing every screen inside the window of \(screen.output.displayName)"
        )
        arrangement = SpanningWindow(host: screen.output.registryName)
        for other in screens.values where other !== screen && other.isOpen { other.tearDown(context: context) }
        screen.invalidate()
    }
}
