import CLinux
import Foundation
import Glibc
import Logging
import Messaging
import Remote
import Rendering
import Screens
import TextRendering
import Wayland

/// Multiscreen on one Wayland connection: a fullscreen screen on every output, followed live.
///
/// Everything here runs on the display thread (the thread that calls ``run()``), which owns every Wayland
/// proxy and the EGL context. Objects are created in this order and destroyed in reverse by ``shutDown()``:
/// display → registry → singleton globals → outputs → EGL context → canvas → screens.
public final class Application {
    public struct Options: Sendable {
        public var display: String?
        public var appID = "dev.multiscreen.Multiscreen"
        /// Seconds before a window the compositor closed is opened again.
        public var reopenDelay = 1.0
        /// The role rules (`config.toml`); nil: `$XDG_CONFIG_HOME/multiscreen/config.toml`.
        public var configPath: String?
        /// The restored state (`state.json`); nil: `$XDG_STATE_HOME/multiscreen/state.json`.
        public var statePath: String?
        /// The control socket; nil: `$MULTISCREEN_SOCKET`, else `$XDG_RUNTIME_DIR/multiscreen/<display>.sock`.
        public var controlSocketPath: String?

        public init(display: String? = nil) { self.display = display }
    }

    let options: Options
    let logger = Logger(label: "multiscreen")
    let display: WaylandDisplay
    let registry: Registry
    let globals = WaylandGlobals()
    var outputs: [UInt32: Output] = [:]
    var tracker = OutputTracker()
    var context: GraphicsContext?
    var rasterizer: TextRasterizer?
    var canvas: Canvas?
    var screens: [UInt32: Screen] = [:]
    let loop: EventLoop
    let signals: SignalSource
    let reopenTimer: OneShotTimer
    var stopRequested = false

    // The product model: roles, content, cards, messages (pure, in Screens), and its file.
    var model: ScreenModel
    let store: StateStore
    /// Something worth saving changed. The state file is written shortly after, off the message path: an atomic
    /// write costs two fsyncs, which must not sit between a message and its frame. SIGINT/SIGTERM save at once.
    var stateChanged = false {
        didSet { if stateChanged && !oldValue { saveTimer.arm(after: Self.saveDelay) } }
    }
    let saveTimer: OneShotTimer
    /// How long a burst of changes may gather before one write: also the most a crash (not a signal) can lose.
    static let saveDelay = 0.5
    var panel = ControllerPanel()
    /// The controller UI's content changed since it was last drawn.
    var controllerDirty = true
    var mirrorTarget: MirrorTexture?

    // Messages: every message reaches the screens through the bus, including the controller's own Send.
    let bus: MessageBus
    let consumer: MessageConsumer
    /// The display thread's own producer (keyboard, pointer): SPSC with itself, so it needs no lock either.
    let localProducer: MessageProducer
    /// The local control socket (`multiscreen send`, `status`, …): a producer thread of its own; the display
    /// thread answers every message it sent.
    var control: ControlServer?
    var messagesApplied = 0
    var seat: Seat?
    /// Under a compositor that shows one window across all outputs (cage), the screen whose window hosts every
    /// screen's content; nil everywhere else.
    var spanningHost: UInt32?

    /// Connects and binds; windows are created as outputs become complete.
    /// - Throws: ``WaylandError`` or ``RenderingError``: the caller exits with ``ExitStatus/startupFailure``.
    public init(options: Options) throws {
        self.options = options
        // Before any thread exists, so every thread inherits the blocked mask.
        signals = try SignalSource()
        bus = try MessageBus()
        consumer = bus.makeConsumer()
        localProducer = bus.makeProducer(capacity: 256)
        (model, store) = Self.loadModel(options: options, logger: logger)
        let socketPath =
            try options.controlSocketPath ?? ControlSocket.defaultPath(environment: ProcessInfo.processInfo.environment)
        control = try ControlServer(path: socketPath, bus: bus)
        let fonts = BackgroundLoad("fonts") { try TextRasterizer() }
        let started = Clock.nanoseconds()
        func phase(_ name: String) {
            logger.debug("start-up: \(name) after \((Clock.nanoseconds() - started) / 1_000_000) ms")
        }
        signal(SIGPIPE, SIG_IGN)
        // glibc raises its mmap threshold each time a large mmapped block is freed (mallopt(3), "M_MMAP_THRESHOLD":
        // the dynamic threshold), after which Mesa's per-surface render buffers (~1-8 MB each) come from the heap
        // and stay there when the surface goes. A kiosk that sees outputs come and go for months must give that
        // memory back: fixing the threshold keeps every large buffer in its own mapping (hotplug benchmark: RSS
        // levels off at +13 MB over 300 add/remove cycles instead of climbing past +40 MB).
        mallopt(M_MMAP_THRESHOLD, 128 * 1024)
        reopenTimer = try OneShotTimer()
        saveTimer = try OneShotTimer()
        display = try WaylandDisplay(name: options.display)
        registry = Registry(display: display)
        loop = EventLoop(display: display)
        registry.onGlobal = { [unowned self] name, interface, version in
            global(name: name, interface: interface, version: version)
        }
        registry.onGlobalRemove = { [unowned self] name in globalRemoved(name: name) }
        // First roundtrip: the globals. Second: every output's first description (wl_output + xdg_output).
        try display.roundtrip()
        try globals.checkRequired()
        try display.roundtrip()
        logger.info("compositor features: \(globals.featureSummary)")
        phase("outputs described")
        context = try GraphicsContext(waylandDisplay: display.pointer)
        phase("EGL ready")
        rasterizer = try fonts.value()
        phase("fonts ready")
        // Compile the shaders now, while the compositor prepares the first configures (Mesa supports
        // EGL_KHR_surfaceless_context; elsewhere the canvas is made with the first surface instead).
        if context?.makeCurrent(nil) == true { canvas = try makeCanvas() }
        phase("shaders compiled")
        loop.watch(signals.fd) { [unowned self] in
            for number in signals.read() {
                logger.info("received signal \(number), shutting down")
                stopRequested = true
            }
        }
        loop.watch(saveTimer.fd) { [unowned self] in
            saveTimer.acknowledge()
            saveStateIfChanged()
        }
        loop.watch(reopenTimer.fd) { [unowned self] in
            reopenTimer.acknowledge()
            reopenClosedScreens()
        }
        loop.watch(consumer.wakeupFileDescriptor) {}  // consumed by didWake
        loop.prepareToSleep = { [unowned self] in consumer.prepareToSleep() }
        loop.didWake = { [unowned self] in consumer.didWake() }
        loop.beforeSleep = { [unowned self] in
            drainMessages()
            renderDirtyScreens()
        }
        syncScreens()
    }

    /// Runs until SIGINT/SIGTERM or a fatal connection error.
    /// - Returns: the process exit status (see ``ExitStatus``).
    public func run() -> ExitStatus {
        var status = ExitStatus.success
        do {
            try loop.run { stopRequested }
        } catch {
            logger.critical("\(error)")
            status = ExitStatus(loopError: error)
        }
        shutDown(connectionAlive: status == .success)
        return status
    }

    // MARK: - Globals and outputs

    private func global(name: UInt32, interface: String, version: UInt32) {
        if globals.bindIfSingleton(registry, name: name, interface: interface) {
            if interface == "zxdg_output_manager_v1", let manager = globals.xdgOutputManager {
                // The manager came after some outputs: describe those now.
                for output in outputs.values {
                    tracker.expectXDGOutput(registryName: output.registryName)
                    output.describe(with: manager)
                }
            }
            return
        }
        if interface == "wl_seat" {
            // One seat is all a kiosk has; a second one would fight over the same controller UI.
            guard seat == nil, let bound = Seat(registry: registry, name: name) else { return }
            attach(seat: bound)
            return
        }
        guard interface == "wl_output", let output = Output(registry: registry, name: name) else { return }
        output.onEvent = { [unowned self] (event: OutputEvent) in
            if let change = tracker.handle(event, registryName: name) { apply(change) }
        }
        outputs[name] = output
        tracker.begin(registryName: name, waitsForXDGOutput: globals.xdgOutputManager != nil)
        if let manager = globals.xdgOutputManager { output.describe(with: manager) }
    }

    private func globalRemoved(name: UInt32) {
        if let seat, seat.registryName == name {
            loop.unwatch(seat.keyRepeater.fileDescriptor)
            seat.destroy()
            self.seat = nil
            return
        }
        guard let output = outputs.removeValue(forKey: name) else { return }
        if let change = tracker.remove(registryName: name) { apply(change) }
        // After its window is gone (apply tore it down): wl_output.release last, as created first.
        output.destroy()
    }

    private func apply(_ change: OutputChange) {
        switch change {
        case .added(let info):
            logger.info("output added: \(info.displayName) \(info.modeText) scale \(info.scale)")
        case .changed(let old, let new):
            logger.info(
                "output changed: \(new.displayName) \(old.modeText) scale \(old.scale) → \(new.modeText) scale \(new.scale)"
            )
        case .removed(let info):
            logger.info("output removed: \(info.displayName)")
        }
        syncScreens()
    }

    /// Makes the set of screens match the set of complete outputs, and refreshes every screen's summary
    /// (indices shift when outputs come and go).
    func syncScreens() {
        guard let context else { return }
        let current = tracker.outputs
        for (name, screen) in screens where tracker[name] == nil {
            screen.tearDown(context: context)
            screens[name] = nil
            logger.info("screen closed: \(screen.output.displayName)")
        }
        for (index, info) in current.enumerated() {
            let summary = ScreenSummary(output: info, index: index, count: current.count)
            let background = ScreenPalette.background(forScreenAt: index)
            if let screen = screens[info.registryName] {
                screen.update(output: info, summary: summary, background: background)
            } else {
                let screen = Screen(output: info, summary: summary, background: background, logger: logger)
                screen.onClose = { [unowned self, unowned screen] in closed(screen) }
                screen.onConfigureSize = { [unowned self, unowned screen] width, height in
                    detectSpanning(screen, width: width, height: height)
                }
                screens[info.registryName] = screen
                if spanningHost == nil {
                    screen.open(globals: globals, wlOutput: outputs[info.registryName]?.proxy, appID: options.appID)
                    logger.info("screen opened: \(info.displayName)")
                }
            }
        }
        if let host = spanningHost, screens[host] == nil, let first = current.first,
            let screen = screens[first.registryName]
        {
            // The hosting window's output went away: another screen's window hosts them all now.
            spanningHost = first.registryName
            screen.open(globals: globals, wlOutput: outputs[first.registryName]?.proxy, appID: options.appID)
            logger.info("screen opened: \(first.displayName) (hosts every screen)")
        }
        if current.isEmpty { spanningHost = nil }
        if current.isEmpty { logger.info("no outputs: waiting for one") }
        apply(model.update(outputs: current))
    }

    private func closed(_ screen: Screen) {
        guard let context else { return }
        logger.warning(
            "compositor closed the window on \(screen.output.displayName); reopening in \(options.reopenDelay) s")
        screen.tearDown(context: context)
        reopenTimer.arm(after: options.reopenDelay)
    }

    private func reopenClosedScreens() {
        for (name, screen) in screens where !screen.isOpen && (spanningHost == nil || spanningHost == name) {
            screen.open(globals: globals, wlOutput: outputs[name]?.proxy, appID: options.appID)
            logger.info("screen reopened: \(screen.output.displayName)")
        }
    }

    // MARK: - Rendering

    /// The canvas needs a current context to compile its programs, so it is made with the first surface.
    func makeCanvas() throws -> Canvas {
        if let canvas { return canvas }
        guard let rasterizer else { throw RenderingError.egl(call: "TextRasterizer", code: 0) }
        let library = try ShaderLibrary()
        logger.debug("shaders from \(library.directory)")
        let made = try Canvas(library: library, rasterizer: rasterizer)
        canvas = made
        return made
    }

    // MARK: - Teardown

    /// Destroys everything in reverse order of creation. With a dead connection, requests are pointless but
    /// harmless (libwayland queues them on a broken socket); EGL must still be terminated before disconnecting.
    private func shutDown(connectionAlive: Bool) {
        saveStateIfChanged()
        if let context {
            for screen in screens.values { screen.tearDown(context: context) }
            screens.removeAll()
            if context.makeCurrent(nil) {
                mirrorTarget?.delete()
                canvas?.delete()
            }
            mirrorTarget = nil
            canvas = nil
            context.terminate()
            logger.debug("EGL terminated")
        }
        context = nil
        rasterizer = nil
        seat?.destroy()
        seat = nil
        localProducer.close()
        for output in outputs.values { output.destroy() }
        outputs.removeAll()
        globals.destroy()
        registry.destroy()
        if connectionAlive { _ = try? display.flush() }
        display.disconnect()
        // Created before the connection, stopped after it: the socket goes away last, with the process.
        control?.stop()
        control = nil
        logger.info("shut down")
    }
}
