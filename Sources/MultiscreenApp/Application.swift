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

/// Multiscreen on one Wayland connection: who reacts to what, and nothing else. Every decision lives in the part
/// that owns it: ``OutputSet`` (outputs), ``ScreenSet`` (windows, hit-tests), ``ProductController`` (behaviour, and
/// which screens a step redraws: ``ScreenUpdates``), ``Graphics`` (EGL and the canvas), ``ScreenPainter`` (what a
/// screen shows), ``WebScreens`` and ``MediaScreens`` (pages, images and videos), the ``MessageBus`` and the message
/// sources. Whatever owns a descriptor or a timer puts it on the ``EventLoop`` itself.
///
/// Everything here runs on the display thread (the thread that calls ``run()``), which owns every Wayland proxy
/// and the EGL context. Created in this order: signals → bus → message sources → display → loop → EGL → registry →
/// globals, outputs, seat → screens. ``shutDown(connectionAlive:)`` destroys the screens, then EGL (nothing draws
/// once the windows are gone), then the rest in reverse: seat, outputs, globals, registry, display, sources.
public final class Application {
    let logger = Logger(label: "multiscreen")
    private let signals: SignalSource
    let bus: MessageBus
    let consumer: MessageConsumer
    /// The display thread's own producer (the controller UI's Send).
    let localProducer: LocalProducer
    private(set) var sources: [any MessageSource]
    private let display: WaylandDisplay
    let loop: EventLoop
    private let registry: Registry
    let globals = WaylandGlobals()
    private let outputs = OutputSet()
    var seat: InputSeat?
    let graphics: Graphics
    /// The web pages on screens (WPE views), started with the first page.
    let web: WebScreens
    /// The images and videos on screens, read off this thread and shown through the compositor.
    let media: MediaScreens
    /// Playlist assets by URL, fetched off this thread into the asset cache.
    let assets: PlaylistAssets
    /// The lengths of the playlists' videos that play their own, measured by the media reader.
    let lengths: VideoLengths
    /// Playlist items fading in over the one before.
    let crossfades = Crossfades()
    /// Which playlist item each screen shows, frame by frame: the proof of play.
    let plays = PlayTracker()
    /// What each screen reads ahead (``ScreenModel/readAhead(of:)``), by registry name: what
    /// ``MediaScreens`` reads before its turn and keeps. They change only with an outcome (``act(on:)``), so they are worked
    /// out there rather than at every wakeup's render pass.
    var readAhead: [UInt32: [MediaItem]] = [:]
    /// Replies in request order per producer, some held while a file is read.
    let replies = OrderedReplies()
    let screens: ScreenSet
    var product: ProductController
    /// The product's timers: the state write, messages' ttl, playlists.
    let deadlines: ProductDeadlines
    /// Write the state file and the proof-of-play log on threads of their own (from `fileWrites`).
    private let stateWriter: FileWriter
    private let playWriter: FileWriter
    private let fileWrites = FileThreads()
    private let service: ServiceManager
    private var stopRequested = false
    var messagesApplied = 0
    /// Until every screen open at start has committed its first frame; then logged and dropped.
    private var startup: StartupPhases? = StartupPhases()

    /// Connects and binds; windows are created as outputs become complete.
    /// - Parameter sources: starts the transports (the control socket, …) on the bus, once the signals are blocked
    ///   (their threads inherit the mask) and before the compositor is asked for anything.
    /// - Throws: ``WaylandError``, ``RenderingError`` or a source's error: the caller exits with
    ///   ``ExitStatus/startupFailure``.
    public init(options: Options, sources: (MessageBus) throws -> [any MessageSource] = { _ in [] }) throws {
        signals = try SignalSource()
        bus = try MessageBus()
        consumer = bus.makeConsumer()
        localProducer = LocalProducer(bus: bus, logger: logger)
        product = ProductController.load(
            configPath: options.configPath, statePath: options.statePath, remoteOfferPlacement: options.remoteOffer,
            logger: logger)
        self.sources = try sources(bus)
        startup?.mark("sources")
        let fonts = BackgroundLoad("fonts") { try TextRasterizer() }
        signal(SIGPIPE, SIG_IGN)
        HeapStatistics.keepLargeBlocksMapped()
        display = try WaylandDisplay(name: options.display)
        loop = EventLoop(display: display)
        deadlines = try ProductDeadlines(loop: loop)
        stateWriter = try FileWriter(
            path: product.store.path, task: "save state", threadName: "ms-state",
            whileHung: "the state stays unsaved until it does", threads: fileWrites, loop: loop, logger: logger)
        playWriter = try FileWriter(
            path: product.playHistory.path, task: PlayHistory.task, threadName: "ms-history",
            whileHung: "the newest plays wait in memory until it does", threads: fileWrites, loop: loop,
            logger: logger)
        service = try ServiceManager(loop: loop, logger: logger)
        startup?.mark("connect")
        graphics = try Graphics(display: display, loop: loop, fonts: fonts, logger: logger)
        startup?.mark("EGL")
        registry = Registry(display: display)
        web = WebScreens(bus: bus, config: options.web, logger: logger)
        media = try MediaScreens(globals: globals, loop: loop, logger: logger)
        assets = PlaylistAssets(config: options.assets, loop: loop, logger: logger)
        lengths = try VideoLengths(loop: loop, logger: logger)
        screens = try ScreenSet(
            globals: globals, outputs: outputs, context: graphics.context, loop: loop, appID: options.appID,
            reopenDelay: options.reopenDelay, flash: options.flash, pacing: options.pacing, logger: logger)
        registry.onGlobal = { [unowned self] name, interface, _ in global(name: name, interface: interface) }
        registry.onGlobalRemove = { [unowned self] name in globalRemoved(name: name) }
        do {
            // First roundtrip: the globals. Second: every output's first description (wl_output + xdg_output).
            try display.roundtrip()
            try globals.checkRequired()
            try display.roundtrip()
            logger.info("compositor features: \(globals.featureSummary)")
            startup?.mark("globals")
            try graphics.prepare(marking: &startup)
        } catch {
            // Everything exists by now: it goes in order, as at exit, not in whatever order Swift releases it.
            shutDown(connectionAlive: true)
            throw error
        }
        graphics.chooseMirrorPath(preference: options.mirror, globals: globals, flash: options.flash != nil)
        screens.sharedFrames = graphics.sharedFrames
        connectReactions()
        outputsChanged()
        service.ready()
        logStartupOnceEveryScreenCommitted()
    }

    /// Logs ``startup`` when every screen has committed its first frame (at once when there is none: zero screens
    /// is a normal start). After every render pass until then.
    private func logStartupOnceEveryScreenCommitted() {
        guard var phases = startup, screens.ordered.allSatisfy(\.hasCommitted) else { return }
        phases.mark("first frames")
        logger.notice("\(phases.summary) (screens: \(screens.ordered.count))")
        startup = nil
    }

    /// Who reacts to what: the parts' callbacks, each handed to the part that decides.
    private func connectReactions() {
        outputs.onChange = { [unowned self] _ in outputsChanged() }
        signals.watch(
            on: loop, logger: logger, reload: { [unowned self] in act(on: product.reloadConfig()) },
            stop: { [unowned self] in stopRequested = true })
        deadlines.save = { [unowned self] in
            // One write at a time: the one under way says when it ends whether the state needs another.
            guard stateWriter.isReady, let (change, work) = nextStateWrite() else { return }
            stateWriter.write(change, work: work)
        }
        stateWriter.onWritten = { [unowned self] change, failure in
            product.stateWritten(change, failure: failure)
            if failure != nil {
                deadlines.retrySave()
            } else if product.hasUnsavedState {
                deadlines.saveSoon()
            }
        }
        playWriter.onWritten = { [unowned self] count, failure in
            product.playLinesWritten(count, failure: failure)
            writePlayLines()
        }
        deadlines.expire = { [unowned self] in act(on: product.expireMessages()) }
        deadlines.advancePlaylists = { [unowned self] in
            let before = product
            let outcome = product.advancePlaylists()
            beginCrossfades(outcome.changes.crossfades, from: before)
            act(on: outcome)
        }
        screens.onLatencyReport = { [unowned self] screen, report in
            // Built only for a subscriber (`events`, `multiscreen latency`): no subscriber, no cost.
            guard consumer.hasEventListeners else { return }
            consumer.publish(
                .frameShown(screen: screen.output.displayName, report, clock: screen.timeline.latency.clock))
        }
        screens.onFrameShown = { [unowned self] screen, frame in
            web.shown(screen.output.registryName, committedAt: screen.timeline.lastCommittedAt)
            plays.windowShown(screen.output.registryName, frame: frame)
        }
        screens.onHealthChange = { [unowned self] screen in
            consumer.publish(.screenHealth(screen: screen.output.displayName, health: screen.health.rawValue))
        }
        web.onEngineStarted = { [unowned self] engine in
            // GLib's sources (WebKit's IPC, the frame export) run in this loop's poll, on this thread.
            let mainContext = engine.mainContext
            loop.foreignPoll = (prepare: mainContext.prepare, dispatch: mainContext.dispatch)
        }
        media.onSettled = { [unowned self] request, reading, ticket in
            let outcome = product.settle(request, with: reading)
            if let ticket, let reply = outcome.reply { replies.settle(ticket, with: reply) }
            act(on: outcome)
        }
        media.onEvent = { [unowned self] event in consumer.publish(event) }
        media.onShown = { [unowned self] name, path in plays.mediaShown(name, path: path) }
        assets.onChange = { [unowned self] available in act(on: product.assetsChanged(available)) }
        assets.onEvent = { [unowned self] event in consumer.publish(event) }
        lengths.measure = { [unowned self] source, path in media.measureLength(of: source, at: path) }
        media.onMeasured = { [unowned self] source, path, result in lengths.took(source, path: path, result) }
        lengths.onLength = { [unowned self] source, length, failure in
            act(on: product.measured(length: length, ofVideo: source, failure: failure))
        }
        loop.watch(consumer.wakeupFileDescriptor) {}  // consumed by didWake
        loop.prepareToSleep = { [unowned self] in consumer.prepareToSleep() }
        loop.didWake = { [unowned self] in consumer.didWake() }
        loop.beforeSleep = { [unowned self] in
            drainMessages()
            render()
        }
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
        } else if interface == "wl_seat", seat == nil, let bound = InputSeat(registry: registry, name: name, loop: loop)
        {
            // One seat is all a kiosk has; a second one would fight over the same controller UI.
            attach(bound)
        }
    }

    private func globalRemoved(name: UInt32) {
        if let seat, seat.registryName == name {
            seat.destroy()
            self.seat = nil
        } else {
            outputs.remove(name: name)
        }
    }

    private func outputsChanged() {
        screens.sync()
        act(on: product.outputsChanged(outputs.current))
    }

    // MARK: - Screens → renderer

    private func render() {
        let cpuBefore = MonotonicClock.nanoseconds(clock: CLOCK_PROCESS_CPUTIME_ID)
        let kind = { [product] (screen: Screen) in product.kind(of: screen.output.registryName) }
        web.sync(screens.ordered, kind: kind, context: graphics.context, eglExtensions: graphics.context.extensions)
        media.sync(
            screens.ordered, kind: kind,
            ahead: { [readAhead] in readAhead[$0.output.registryName] ?? [] },
            covered: { [product] in product.identity(of: $0.output.registryName) != nil })
        crossfades.stack(screens.ordered) { [media] in media.layer(of: $0) }
        let painter = ScreenPainter(
            product: product, screens: screens, graphics: graphics, bus: bus, applied: messagesApplied,
            now: MonotonicClock.nanoseconds(), web: web)
        let drawn = screens.render(
            canvas: { try graphics.makeCanvas() }, controller: product.model.assignment.controller, kind: kind,
            showsMessage: { [web] in $0.timeline.waitsToShowMessage || web.showsMessage($0.output.registryName) },
            picture: painter.picture, draw: painter.draw)
        logStartupOnceEveryScreenCommitted()
        // After the pass that drew the screens going off black: that is the last frame they show.
        screens.syncPower({ [product] in product.power(of: $0.output.registryName) }, globals: globals)
        record(plays.sync(screens.ordered, item: playlistItem))
        graphics.scheduleTextRelease()
        if drawn > 0 {
            // Process CPU time covers llvmpipe's rasteriser threads too: with software GL this is CPU + "GPU".
            let cpu = MonotonicClock.nanoseconds(clock: CLOCK_PROCESS_CPUTIME_ID) - cpuBefore
            logger.debug("render pass: \(drawn) screens, \(FrameTimeline.milliseconds(cpu)) ms CPU")
        }
    }

    /// The playlist item a screen shows now and when its turn began, for the proof of play.
    private func playlistItem(_ screen: Screen) -> (item: PlayTracker.Item, start: Double)? {
        guard let (playlist, clockIndex) = product.model.playlistItem(of: screen.output.registryName),
            let index = product.model.shownItem(of: playlist, at: clockIndex)
        else { return nil }
        // A pass a hair before the switch's timer still shows the item before: its start, not the next one's. An item
        // shown in place of one whose asset is missing counts from its own last start.
        let start = playlist.start(ofItem: index, at: Date().timeIntervalSince1970)
        let source = playlist.items[index].source
        let file = product.model.availableAssets[source]
        return (PlayTracker.Item(source: source, index: index, file: file), start)
    }

    /// Keeps the records of turns that ended, tells the subscribers, and has their lines written.
    private func record(_ records: [PlayRecord]) {
        for record in records {
            for event in product.recordPlay(record).events { consumer.publish(event) }
        }
        writePlayLines()
    }

    /// Hands the lines waiting for the proof-of-play log to a write, unless one is under way: when it ends, it hands
    /// over what came meanwhile.
    private func writePlayLines() {
        guard playWriter.isReady, let (count, work) = nextPlayLinesWrite() else { return }
        playWriter.write(count, work: work)
    }

    /// The state file's next write: the changes it includes, and the work; nil when nothing changed since the last.
    private func nextStateWrite() -> FileWriter.Write? {
        product.stateToWrite().map { [store = product.store] state, change in
            (change, { () throws(StateStoreError) in try store.save(state) })
        }
    }

    /// The proof-of-play log's next write: the lines waiting, handed over; nil when none waits.
    private func nextPlayLinesWrite() -> FileWriter.Write? {
        let (path, limit) = (product.playHistory.path, product.playHistory.fileLimit)
        return product.playLinesToWrite().map { lines, count in
            (count, { () throws(StateStoreError) in try PlayHistory.write(lines, to: path, fileLimit: limit) })
        }
    }

    // MARK: - Teardown

    /// What the writes under way did not include is written last, each file on its writer's thread, unless that
    /// file's write hangs (a hung disk: another would hang too). The exit waits for them all to one deadline.
    private func finishWrites() {
        let hangsAfter = FileWriter.hangsAfter
        stateWriter.finishing { [unowned self] in nextStateWrite() }
        playWriter.finishing { [unowned self] in nextPlayLinesWrite() }
        let lostBefore = product.playHistory.lost
        let ended = FileWriter.finish(
            [stateWriter, playWriter], sharing: fileWrites,
            by: MonotonicClock.nanoseconds() &+ UInt64(hangsAfter * 1e9))
        if product.hasUnsavedState {
            logger.error(
                ended[0]
                    ? "the state file could not be written at exit: the changes since the last write are not saved"
                    : "the state file's write has not returned within the exit's \(hangsAfter) s: the changes since the last write that returned are not saved"
            )
        }
        // A failed write counts its records as lost; one still under way leaves them unwritten.
        let notWritten = product.playHistory.unwrittenCount + product.playHistory.lost - lostBefore
        if notWritten > 0 {
            logger.error(
                ended[1]
                    ? "the play history could not be written at exit: the last \(notWritten) record(s) are not written"
                    : "the play history's write has not returned within the exit's \(hangsAfter) s: the last \(notWritten) record(s) are not written"
            )
        }
    }

    /// Destroys everything in reverse order of creation. With a dead connection, requests are pointless but
    /// harmless (libwayland queues them on a broken socket); EGL must still be terminated before disconnecting.
    private func shutDown(connectionAlive: Bool) {
        service.stopping()
        record(plays.endAll())
        finishWrites()
        web.tearDownAll(context: graphics.context)
        crossfades.tearDownAll()
        media.tearDownAll()
        assets.tearDown()
        screens.tearDownAll()
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
