import CLinux
import Foundation
import Glibc
import Logging
import Messaging
import Outputs
import Product
import Rendering
import Screens
import TextRendering
import Wayland
import WebContent

/// Multiscreen on one Wayland connection: who reacts to what. Everything else lives in the parts it wires:
/// ``OutputSet`` (outputs), ``ScreenSet`` (windows), ``ProductController`` (behaviour), ``Graphics`` (EGL and the
/// canvas), ``ScreenPainter`` (what a screen shows), the ``MessageBus`` and the message sources.
///
/// Everything here runs on the display thread (the thread that calls ``run()``), which owns every Wayland proxy
/// and the EGL context. Created in this order: signals → bus → message sources → display → EGL → registry →
/// globals, outputs, seat → screens. ``shutDown(connectionAlive:)`` destroys the screens, then EGL (nothing draws
/// once the windows are gone), then the rest in reverse: seat, outputs, globals, registry, display, sources.
public final class Application {
    /// How long a burst of changes may gather before one state write: also the most a crash (not a signal) can
    /// lose. The atomic write costs two fsyncs, which must not sit between a message and its frame.
    static let saveDelay = 0.5
    /// How long after a failed write (disk full, read-only) the state file is tried again.
    static let saveRetryDelay = 3.0

    let logger = Logger(label: "multiscreen")
    private let signals: SignalSource
    private let bus: MessageBus
    private let consumer: MessageConsumer
    /// The display thread's own producer (the controller UI's Send): SPSC with itself, so it needs no lock either.
    private let localProducer: MessageProducer
    private var sources: [any MessageSource]
    private let display: WaylandDisplay
    private let registry: Registry
    private let globals = WaylandGlobals()
    private let outputs = OutputSet()
    var seat: Seat?
    private let graphics: Graphics
    /// The web pages on screens (WPE views), started with the first page.
    let web: WebScreens
    /// The images and videos on screens, read off this thread and shown through the compositor.
    private let media: MediaScreens
    /// Replies in request order per producer, some held while a file is read.
    private let replies = OrderedReplies()
    let screens: ScreenSet
    var product: ProductController
    private let saveTimer: OneShotTimer
    /// Fires when the next message sent with a ttl is due to go.
    private let expiryTimer: OneShotTimer
    /// Fires when a playlist's next item is due: the only wakeup a playlist of pictures costs.
    private let playlistTimer: OneShotTimer
    let loop: EventLoop
    private let service: ServiceManager
    private var stopRequested = false
    private var messagesApplied = 0
    private let offerPlacement: RemoteOfferPlacement

    /// Connects and binds; windows are created as outputs become complete.
    /// - Parameter sources: starts the transports (the control socket, …) on the bus, once the signals are blocked
    ///   (their threads inherit the mask) and before the compositor is asked for anything.
    /// - Throws: ``WaylandError``, ``RenderingError`` or a source's error: the caller exits with
    ///   ``ExitStatus/startupFailure``.
    public init(options: Options, sources: (MessageBus) throws -> [any MessageSource] = { _ in [] }) throws {
        signals = try SignalSource()
        offerPlacement = options.remoteOffer
        bus = try MessageBus()
        consumer = bus.makeConsumer()
        localProducer = bus.makeProducer(capacity: 256, sink: LocalReplies(logger: logger))
        product = ProductController.load(configPath: options.configPath, statePath: options.statePath, logger: logger)
        self.sources = try sources(bus)
        let fonts = BackgroundLoad("fonts") { try TextRasterizer() }
        signal(SIGPIPE, SIG_IGN)
        // glibc raises its mmap threshold each time a large mmapped block is freed (mallopt(3), "M_MMAP_THRESHOLD":
        // the dynamic threshold), after which Mesa's per-surface render buffers (~1-8 MB each) come from the heap
        // and stay there when the surface goes. A kiosk that sees outputs come and go for months must give that
        // memory back: fixing the threshold keeps every large buffer in its own mapping. The text cache relies on it
        // too (``Canvas``): small texts share its atlas, every larger one is above this threshold.
        mallopt(M_MMAP_THRESHOLD, 128 * 1024)
        saveTimer = try OneShotTimer()
        expiryTimer = try OneShotTimer()
        playlistTimer = try OneShotTimer()
        service = try ServiceManager(logger: logger)
        display = try WaylandDisplay(name: options.display)
        graphics = try Graphics(display: display, fonts: fonts, logger: logger)
        registry = Registry(display: display)
        loop = EventLoop(display: display)
        web = WebScreens(bus: bus, config: options.web, logger: logger)
        media = try MediaScreens(globals: globals, logger: logger)
        screens = try ScreenSet(
            globals: globals, outputs: outputs, appID: options.appID, reopenDelay: options.reopenDelay,
            flash: options.flash, pacing: options.pacing, logger: logger)
        screens.onLatencyReport = { [unowned self] screen, report in
            // Built only for a subscriber (`events`, `multiscreen latency`): no subscriber, no cost.
            guard consumer.hasEventListeners else { return }
            consumer.publish(.frameShown(screen: screen.output.displayName, report, clock: screen.latency.clock))
        }
        registry.onGlobal = { [unowned self] name, interface, _ in global(name: name, interface: interface) }
        registry.onGlobalRemove = { [unowned self] name in globalRemoved(name: name) }
        // First roundtrip: the globals. Second: every output's first description (wl_output + xdg_output).
        try display.roundtrip()
        try globals.checkRequired()
        try display.roundtrip()
        logger.info("compositor features: \(globals.featureSummary)")
        try graphics.prepare()
        graphics.chooseMirrorPath(preference: options.mirror, globals: globals, flash: options.flash != nil)
        screens.sharedFrames = graphics.sharedFrames
        outputs.onChange = { [unowned self] _ in outputsChanged() }
        loop.watch(signals.fd) { [unowned self] in
            for number in signals.read() {
                if number == SIGHUP {
                    act(on: product.reloadConfig())
                } else {
                    logger.info("received signal \(number), shutting down")
                    stopRequested = true
                }
            }
        }
        loop.watch(saveTimer.fd) { [unowned self] in
            saveTimer.acknowledge()
            if !product.saveIfChanged() { saveTimer.arm(after: Self.saveRetryDelay) }
        }
        loop.watch(expiryTimer.fd) { [unowned self] in
            expiryTimer.acknowledge()
            act(on: product.expireMessages())
        }
        loop.watch(playlistTimer.fd) { [unowned self] in
            playlistTimer.acknowledge()
            act(on: product.advancePlaylists())
        }
        loop.watch(screens.reopenTimer.fd) { [unowned self] in screens.reopenClosed() }
        loop.watch(screens.drawTimer.fd) { [unowned self] in screens.drawTimer.acknowledge() }  // then render()
        loop.watch(screens.healthTimer.fd) { [unowned self] in screens.checkHealth(context: graphics.context) }
        loop.watch(graphics.textReleaseTimer.fd) { [unowned self] in graphics.releaseUnusedTexts() }
        if let watchdog = service.watchdogTimer { loop.watch(watchdog.fd) { [unowned self] in service.ping() } }
        web.onEngineStarted = { [unowned self] engine in
            // GLib's sources (WebKit's IPC, the frame export) run in this loop's poll, on this thread.
            let mainContext = engine.mainContext
            loop.foreignPoll = (prepare: mainContext.prepare, dispatch: mainContext.dispatch)
        }
        screens.onFrameShown = { [unowned self] screen in
            web.shown(screen.output.registryName, committedAt: screen.lastCommittedAt)
        }
        screens.onHealthChange = { [unowned self] screen in
            consumer.publish(.screenHealth(screen: screen.output.displayName, health: screen.health.rawValue))
        }
        media.onSettled = { [unowned self] request, reading, ticket in
            let outcome = product.settle(request, with: reading)
            if let ticket, let reply = outcome.reply { replies.settle(ticket, with: reply) }
            act(on: outcome)
        }
        media.onEvent = { [unowned self] event in consumer.publish(event) }
        media.watch = { [unowned self] fd, handler in loop.watch(fd, handler: handler) }
        media.unwatch = { [unowned self] fd in loop.unwatch(fd) }
        loop.watch(media.fileDescriptors.news) { [unowned self] in media.takeNews() }
        loop.watch(media.fileDescriptors.timer) { [unowned self] in media.timerFired() }
        loop.watch(consumer.wakeupFileDescriptor) {}  // consumed by didWake
        loop.prepareToSleep = { [unowned self] in consumer.prepareToSleep() }
        loop.didWake = { [unowned self] in consumer.didWake() }
        loop.beforeSleep = { [unowned self] in
            drainMessages()
            render()
        }
        outputsChanged()
        service.ready()
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

    // MARK: - Compositor → outputs → screens

    private func global(name: UInt32, interface: String) {
        if globals.bindIfSingleton(registry, name: name, interface: interface) {
            if interface == "zxdg_output_manager_v1", let manager = globals.xdgOutputManager {
                outputs.describe(with: manager)
            }
        } else if interface == "wl_output" {
            outputs.bind(registry, name: name)
        } else if interface == "wl_seat", seat == nil, let bound = Seat(registry: registry, name: name) {
            // One seat is all a kiosk has; a second one would fight over the same controller UI.
            attach(bound)
        }
    }

    private func globalRemoved(name: UInt32) {
        if let seat, seat.registryName == name {
            loop.unwatch(seat.keyRepeater.fileDescriptor)
            seat.destroy()
            self.seat = nil
        } else {
            outputs.remove(name: name)
        }
    }

    private func outputsChanged() {
        screens.sync(context: graphics.context)
        act(on: product.outputsChanged(outputs.current))
    }

    // MARK: - Producers → bus → product → reply sinks

    /// Applies every message available now. Bursts coalesce: the screens they touch are marked dirty, and the
    /// render pass that follows draws the final state once.
    private func drainMessages() {
        let drainedAt = MonotonicClock.nanoseconds()
        messagesApplied += consumer.drain { received in
            // Each page gets what this message brings it (a reply, events, the message) in one script.
            web.holdDeliveries()
            defer { web.releaseDeliveries() }
            let outcome = product.execute(
                received.message, requestID: received.requestID, producer: received.producerID, now: drainedAt
            ) { vitals }
            if let reply = outcome.reply {
                replies.deliver(reply, to: received.replyTo, producer: received.producerID)
            } else if let request = outcome.mediaToRead {
                let ticket = replies.hold(for: received.replyTo, producer: received.producerID)
                media.read(request, ticket: ticket, screens: screens.ordered)
            }
            act(on: outcome, stamp: (outcome.changes.message?.id ?? 0, received.enqueuedAt, drainedAt))
        }
    }

    /// Puts an outcome into effect: events to every sink that wants them, redraws, a save soon, a message to send.
    func act(on outcome: Outcome, stamp: (id: UInt64, enqueuedAt: UInt64, drainedAt: UInt64)? = nil) {
        for event in outcome.events { consumer.publish(event) }
        let changes = outcome.changes
        if changes.assignment || changes.everyScreen {
            for screen in screens.screens.values { screen.invalidate() }
        }
        if changes.assignment { seat?.refreshCursor() }
        for name in changes.pageReloads {
            if let screen = screens.screens.values.first(where: { $0.output.displayName == name }) {
                web.reload(screen.output.registryName)
            }
        }
        if let message = changes.message, !web.isEmpty {
            web.deliver(
                text: message.text, screen: message.screen, stamp: stamp, among: screens.ordered,
                controller: product.model.assignment.controller)
        }
        if let message = changes.message, let stamp {
            // A web screen's frame showing the message comes from its page: WebScreens follows it there.
            for screen in screens.screens.values
            where (message.screen == nil || message.screen == screen.output.displayName)
                && !product.kind(of: screen.output.registryName).isWeb
            {
                screen.messageArrived(stamp, kind: product.kind(of: screen.output.registryName))
            }
        }
        for screen in screens.screens.values where changes.screens.contains(screen.output.displayName) {
            screen.invalidate()
        }
        // The remote's QR code changes a corner of the screens that show it; the controller and the others look the
        // same with any offer, and a software frame of theirs for nothing would delay the next message's frame.
        if changes.remoteOffer {
            for screen in screens.screens.values
            where ScreenPainter.showsRemoteOffer(
                product.kind(of: screen.output.registryName), on: screen.output.displayName, placement: offerPlacement)
            {
                screen.invalidate()
            }
        }
        // A page in place of the controller UI shows nothing of ours: redrawing it would only copy the same page frame
        // again (a whole software frame per message, on the thread that delivers to the other pages).
        if changes.controllerUI, let controller = product.model.assignment.controller,
            !product.kind(of: controller).isWeb
        {
            screens.screens[controller]?.invalidate()
        }
        if changes.state { saveTimer.armUnlessPending(after: Self.saveDelay) }
        if let next = product.nextExpiry { expiryTimer.arm(for: next, after: max(next.timeIntervalSinceNow, 0)) }
        // A millisecond late rather than early: a timer that fired a hair before the switch would find the same item.
        if let next = product.nextPlaylistSwitch {
            playlistTimer.arm(for: next, after: max(next.timeIntervalSinceNow, 0) + 0.001)
        } else {
            playlistTimer.disarm()
        }
        if let message = outcome.toSend {
            switch localProducer.trySend(message) {
            case .enqueued: break
            case .full: logger.warning("message not sent: the bus is full (counted as rejected-full); try again")
            case .rejected(let error): logger.warning("message not sent: \(error.message)")
            }
        }
    }

    /// What `status` reports beyond the product's own state.
    private var vitals: Vitals {
        var vitals = screens.vitals
        (vitals.bus, vitals.wakeups, vitals.applied) = (bus.statistics, bus.wakeupsSent, messagesApplied)
        vitals.sources = Dictionary(uniqueKeysWithValues: sources.map { ($0.name, $0.counters) })
        vitals.sourceNotes = Dictionary(uniqueKeysWithValues: sources.map { ($0.name, $0.notes) })
        graphics.addMirrorVitals(to: &vitals)
        vitals.sources.merge(web.sourceCounters) { own, _ in own }
        vitals.pages = web.vitals
        vitals.media = media.vitals
        vitals.wallClock = Date().timeIntervalSince1970
        vitals.memory = HeapStatistics.current.counters.merging(graphics.textCacheCounters) { $1 }
        return vitals
    }

    // MARK: - Screens → renderer

    private func render() {
        let cpuBefore = MonotonicClock.nanoseconds(clock: CLOCK_PROCESS_CPUTIME_ID)
        web.sync(
            screens.ordered, kind: { [product] in product.kind(of: $0.output.registryName) },
            context: graphics.context, eglExtensions: graphics.context.extensions)
        media.sync(screens.ordered) { [product] in product.kind(of: $0.output.registryName) }
        let painter = ScreenPainter(
            product: product, screens: screens, graphics: graphics, bus: bus, applied: messagesApplied,
            now: MonotonicClock.nanoseconds(), web: web, offerPlacement: offerPlacement)
        let drawn = screens.render(
            context: graphics.context, canvas: { try graphics.makeCanvas() },
            controller: product.model.assignment.controller,
            kind: { [product] in product.kind(of: $0.output.registryName) },
            showsMessage: { [web] in $0.waitsToShowMessage || web.showsMessage($0.output.registryName) },
            draw: painter.draw)
        screens.scheduleHealthCheck()
        screens.scheduleDraw()
        graphics.scheduleTextRelease()
        if drawn > 0 {
            // Process CPU time covers llvmpipe's rasteriser threads too: with software GL this is CPU + "GPU".
            let cpu = MonotonicClock.nanoseconds(clock: CLOCK_PROCESS_CPUTIME_ID) - cpuBefore
            logger.debug("render pass: \(drawn) screens, \(Screen.milliseconds(cpu)) ms CPU")
        }
    }

    // MARK: - Teardown

    /// Destroys everything in reverse order of creation. With a dead connection, requests are pointless but
    /// harmless (libwayland queues them on a broken socket); EGL must still be terminated before disconnecting.
    private func shutDown(connectionAlive: Bool) {
        service.stopping()
        product.saveIfChanged()
        web.tearDownAll(context: graphics.context)
        media.tearDownAll()
        screens.tearDownAll(context: graphics.context)
        // Nothing draws once the windows are gone: EGL goes next, while every proxy it might know is still alive.
        graphics.destroy()
        logger.debug("EGL terminated")
        seat?.destroy()
        seat = nil
        outputs.destroy()
        globals.destroy()
        registry.destroy()
        if connectionAlive { _ = try? display.flush() }
        display.disconnect()
        // Started before the connection, stopped after it: the transports go away last, with the process.
        for source in sources.reversed() { source.stop() }
        sources.removeAll()
        localProducer.close()
        logger.info("shut down")
    }
}
