import Logging
import Messaging
import Rendering
import Screens
import Wayland
import WebContent

/// The web pages on screens: one ``WebView`` (with its page's bridge into the bus) and one ``WebFrameTexture`` per
/// screen whose kind is `web`, made when a screen starts showing a page and destroyed when it stops or its screen
/// goes. The engine (WPE WebKit, GLib's main context in the display thread's poll) starts with the first page.
///
/// Display thread only. ``sync(_:kind:context:)`` runs before every render pass; ``tearDownAll(context:)`` at exit,
/// before EGL goes.
final class WebScreens {
    private struct Page {
        var url: String
        var view: WebView
        var texture: WebFrameTexture
        var size: (width: Int, height: Int, scale: Int)
        /// Messages handed to the page whose frame has not come yet, and those in the frame uploaded last, waiting
        /// for the compositor to show it.
        var waiting: [PageMessageTrace] = []
        var carried: [PageMessageTrace] = []
        /// Message enqueue → the page's frame showing it shown by the compositor (frame callback), ms, newest last,
        /// with the split of each (``PageMessageTrace``).
        var latencies: [(stages: [String: Double], total: Double)] = []
        /// The web process drawing this page, as far as it can be told (``WebProcesses``); nil until its first
        /// frame, and again after a crash.
        var process: Int32?
        var opened: Int
    }

    /// Latency samples kept per page.
    static let latencySamples = 1000

    private var engine: WebEngine?
    private var pages: [UInt32: Page] = [:]
    /// The URL each screen could not show (no engine, no view): not tried again on every render pass, only when
    /// the screen is asked to show another URL or stops showing it.
    private var failed: [UInt32: String] = [:]
    private let bus: MessageBus
    private let config: WebConfig
    private let logger: Logger
    /// The engine started: the caller puts its main context into the display thread's poll.
    var onEngineStarted: (WebEngine) -> Void = { _ in }
    /// Views made and destroyed so far, and engine failures, for `status`.
    private(set) var opened = 0
    private(set) var closed = 0
    private(set) var failures = 0

    init(bus: MessageBus, config: WebConfig = WebConfig(), logger: Logger) {
        self.bus = bus
        self.config = config
        self.logger = logger
    }

    var isEmpty: Bool { pages.isEmpty }

    /// Makes the views match what the screens show: a view for each screen showing a page (a new one when its URL
    /// changed), none for the others; a view follows its screen's size and scale.
    func sync(_ screens: [Screen], kind: (Screen) -> ScreenKind, context: GraphicsContext, eglExtensions: String) {
        var wanted: [UInt32: (Screen, String)] = [:]
        for screen in screens {
            if case .web(let url) = kind(screen) { wanted[screen.output.registryName] = (screen, url) }
        }
        for (name, page) in pages where wanted[name]?.1 != page.url {
            close(name, page: page, context: context)
        }
        for (name, url) in failed where wanted[name]?.1 != url { failed[name] = nil }
        for (name, (screen, url)) in wanted {
            let size = Self.size(of: screen)
            if let page = pages[name] {
                if page.size != size {
                    page.view.resize(width: size.width, height: size.height, scale: size.scale)
                    pages[name]?.size = size
                }
                continue
            }
            if failed[name] == url { continue }
            open(screen, url: url, size: size, eglExtensions: eglExtensions)
        }
    }

    private static func size(of screen: Screen) -> (width: Int, height: Int, scale: Int) {
        let logical = screen.output.logicalSize
        return (Int(logical.width), Int(logical.height), Int(max(screen.output.scale, 1)))
    }

    private func open(_ screen: Screen, url: String, size: (width: Int, height: Int, scale: Int), eglExtensions: String)
    {
        do {
            let engine = try startEngine(eglExtensions: eglExtensions)
            let bridge = PageBridge(
                bus: bus, screen: screen.output.displayName, permissions: config.permissions, logger: logger)
            let view = try WebView(
                engine: engine, url: url, width: size.width, height: size.height, scale: size.scale, bridge: bridge,
                logger: logger)
            view.onChange = { [weak screen] in screen?.invalidate() }
            let name = screen.output.registryName
            view.onScriptCompleted = { [unowned self] number in scriptCompleted(number, on: name) }
            pages[screen.output.registryName] = Page(
                url: url, view: view, texture: WebFrameTexture(), size: size, opened: opened)
            opened += 1
            screen.invalidate()
        } catch {
            failures += 1
            failed[screen.output.registryName] = url
            logger.error("\(screen.output.displayName): cannot show \(url.logSafeURL): \(error)")
        }
    }

    private func startEngine(eglExtensions: String) throws(WebContentError) -> WebEngine {
        if let engine { return engine }
        let started = try WebEngine(
            eglExtensions: eglExtensions, memoryLimitMiB: config.memoryLimitMiB, logger: logger)
        engine = started
        onEngineStarted(started)
        return started
    }

    private func close(_ name: UInt32, page: Page, context: GraphicsContext) {
        page.view.destroy()
        // Textures are shared by every surface of the one context: any current surface (or none) will do.
        _ = context.makeCurrent(nil)
        page.texture.delete()
        pages[name] = nil
        closed += 1
        if focus.keyboard == name { focus.keyboard = nil }
        if focus.pointer?.name == name { focus.pointer = nil }
        focus.buttons = focus.buttons.filter { $0.value != name }
        focus.touches = focus.touches.filter { $0.value != name }
    }

    // MARK: - Input

    /// Where pointer and touch input went last, and which page has the keyboard.
    ///
    /// The keyboard follows Multiscreen's own focus, not the compositor's (a kiosk needs no pointer to focus the
    /// right window first): keys go to the controller, a page in its place included, until a press (a pointer
    /// button or a finger) lands on a page on an external screen; that page then has the keys until a press lands
    /// anywhere else, or the page goes.
    private struct InputFocus {
        /// The external screen whose page has the keyboard (nil: the controller has it).
        var keyboard: UInt32?
        /// The page the pointer is over and where, in that screen's logical coordinates (`scroll` carries none).
        var pointer: (name: UInt32, x: Double, y: Double)?
        /// The page each pointer button went down on: its release goes there too, wherever the pointer is then.
        var buttons: [UInt32: UInt32] = [:]
        /// The page each touch point went down on.
        var touches: [Int32: UInt32] = [:]
    }
    private var focus = InputFocus()

    /// A key: for the page that has the keyboard, else for the page in place of the `controller` UI, if any.
    /// - Returns: false when the keys are the native controller UI's.
    func key(controller: UInt32?, keysym: UInt32, text: String, modifiers: UInt32) -> Bool {
        guard let name = focus.keyboard ?? controller, let page = pages[name] else { return false }
        page.view.key(keysym: keysym, text: text, modifiers: modifiers)
        return true
    }

    /// A press landed on the screen with this registry name (nil: on no screen of ours): a page on an external
    /// screen takes the keyboard, anything else gives it back to the controller.
    private func pressed(on name: UInt32?, controller: UInt32?, displayName: String) {
        let next = name.flatMap { $0 != controller && pages[$0] != nil ? $0 : nil }
        guard next != focus.keyboard else { return }
        focus.keyboard = next
        logger.info("keyboard → \(next == nil ? "the controller" : "the page on \(displayName)")")
    }

    /// A pointer event for the page under the pointer. `target` maps a surface-local position to the screen shown
    /// there and the position in that screen's logical coordinates. - Returns: whether a page took the event (the
    /// native controller UI acts on it otherwise).
    func pointer(
        _ event: PointerEvent, controller: UInt32?,
        target: (SurfaceID?, Double, Double) -> (name: UInt32, displayName: String, x: Double, y: Double)?
    ) -> Bool {
        switch event {
        case .enter(let surface, let x, let y), .motion(let surface, let x, let y):
            guard let at = target(surface, x, y), let page = pages[at.name] else {
                focus.pointer = nil
                return false
            }
            focus.pointer = (at.name, at.x, at.y)
            page.view.pointerMotion(x: at.x, y: at.y)
            return true
        case .leave:
            focus.pointer = nil
            return false
        case .press(let button, let surface, let x, let y):
            let at = target(surface, x, y)
            pressed(on: at?.name, controller: controller, displayName: at?.displayName ?? "")
            guard let at, let page = pages[at.name] else { return false }
            focus.buttons[button] = at.name
            page.view.pointerButton(button, pressed: true, x: at.x, y: at.y)
            return true
        case .release(let button, let surface, let x, let y):
            guard let name = focus.buttons.removeValue(forKey: button), let page = pages[name] else { return false }
            let at = target(surface, x, y).flatMap { $0.name == name ? $0 : nil }
            page.view.pointerButton(button, pressed: false, x: at?.x ?? 0, y: at?.y ?? 0)
            return true
        case .scroll(_, let dx, let dy, _, _):
            guard let at = focus.pointer, let page = pages[at.name] else { return false }
            page.view.scroll(dx: dx, dy: dy, x: at.x, y: at.y)
            return true
        }
    }

    /// A touch event for the page the point went down on. - Returns: whether a page took it.
    func touch(
        _ event: TouchEvent, controller: UInt32?,
        target: (SurfaceID?, Double, Double) -> (name: UInt32, displayName: String, x: Double, y: Double)?
    ) -> Bool {
        switch event {
        case .down(let id, let surface, let x, let y):
            let at = target(surface, x, y)
            pressed(on: at?.name, controller: controller, displayName: at?.displayName ?? "")
            guard let at, let page = pages[at.name] else { return false }
            focus.touches[id] = at.name
            page.view.touch(.down, id: id, x: at.x, y: at.y)
            return true
        case .motion(let id, let surface, let x, let y), .up(let id, let surface, let x, let y):
            guard let name = focus.touches[id], let page = pages[name] else { return false }
            // A finger that slid onto another screen of a spanning window stays where it last was on its own.
            let at = target(surface, x, y).flatMap { $0.name == name ? $0 : nil }
            if case .up = event {
                focus.touches[id] = nil
                page.view.touch(.up, id: id, x: at?.x ?? 0, y: at?.y ?? 0)
            } else if let at {
                page.view.touch(.motion, id: id, x: at.x, y: at.y)
            }
            return true
        case .cancel:
            for name in Set(focus.touches.values) { pages[name]?.view.cancelTouches() }
            focus.touches = [:]
            return false
        }
    }

    /// Loads the page on the screen with this registry name again.
    func reload(_ name: UInt32) { pages[name]?.view.reload() }

    /// What the screen should draw now: the newest frame copied into its texture (the buffer goes back to WPE), or
    /// the reason there is none. Call with the screen's surface current.
    func frame(of name: UInt32) -> (texture: WebFrameTexture?, state: WebView.State)? {
        guard let page = pages[name] else { return nil }
        let drawnAt = MonotonicClock.nanoseconds()
        let uploaded = page.view.takeFrame { pixels, width, height, stride in
            page.texture.upload(pixels: pixels, width: width, height: height, stride: stride)
        }
        // An idle page draws only because of what it was told: the first frame after a message is the one
        // showing it (a page that animates would make this an underestimate).
        if uploaded && !page.waiting.isEmpty {
            let (exportedAt, waited) = (page.view.lastFrameExportedAt, page.view.lastFrameWaitedAtMost)
            pages[name]?.carried += page.waiting.map { message in
                var message = message
                (message.exportedAt, message.exportWaitedAtMost, message.drawnAt) = (exportedAt, waited, drawnAt)
                return message
            }
            pages[name]?.waiting = []
        }
        if uploaded && (page.process.map { !WebProcesses.isAlive($0) } ?? true) { attributeProcesses() }
        return (page.texture.texture != 0 ? page.texture : nil, page.view.state)
    }

    /// Whether the page on this screen has a frame waiting to be drawn that shows a message handed to it.
    func showsMessage(_ name: UInt32) -> Bool {
        guard let page = pages[name] else { return false }
        return page.view.hasFrameWaiting && page.waiting.contains { $0.script != nil }
    }

    /// The compositor showed a frame of this screen, committed at `committedAt`: its page may draw the next one.
    func shown(_ name: UInt32, committedAt: UInt64?) {
        guard var page = pages[name] else { return }
        page.view.framePresented()
        guard !page.carried.isEmpty else { return }
        let now = MonotonicClock.nanoseconds()
        for message in page.carried {
            let split = message.stages(committedAt: committedAt, shownAt: now)
            logger.debug(
                "web latency: message #\(message.id) on \(page.view.bridge.name) enqueue→shown \(split.total) ms: \(split.stages)"
            )
            page.latencies.append(split)
        }
        page.latencies = Array(page.latencies.suffix(Self.latencySamples))
        page.carried = []
        pages[name] = page
    }

    /// While the display thread handles one message: what each page is handed for it (the reply to the page's
    /// request, the events, the message itself) is held back, and ``releaseDeliveries()`` hands it over as one script
    /// per page, one IPC to its web process instead of one per packet.
    private var holding = false

    func holdDeliveries() {
        holding = true
        for page in pages.values { page.view.bridge.hold() }
    }

    func releaseDeliveries() {
        guard holding else { return }
        holding = false
        for (name, page) in pages where page.view.bridge.release() {
            let (now, script) = (MonotonicClock.nanoseconds(), page.view.scriptsSent)
            pages[name]?.waiting = page.waiting.map { message in
                guard message.script == nil else { return message }
                var handed = message
                (handed.deliveredAt, handed.script) = (now, script)
                return handed
            }
        }
    }

    /// A message arrived for `screen` (nil: every screen): the pages it is for receive it (`receiveMessage`), except
    /// one in place of the controller UI, which is where messages come from, not where they are shown.
    func deliver(
        text: String, screen: String?, stamp: (id: UInt64, enqueuedAt: UInt64, drainedAt: UInt64)?,
        among screens: [Screen], controller: UInt32?
    ) {
        let names = screens.filter { candidate in
            candidate.output.registryName != controller && (screen == nil || screen == candidate.output.displayName)
        }.map(\.output.registryName)
        for name in names {
            guard let view = pages[name]?.view else { continue }
            view.bridge.show(text: text, screen: screen)
            guard let stamp else { continue }
            // Held: stamped when its script goes (``releaseDeliveries()``).
            let handed = holding ? nil : (at: MonotonicClock.nanoseconds(), script: view.scriptsSent)
            pages[name]?.waiting.append(
                PageMessageTrace(
                    id: stamp.id, enqueuedAt: stamp.enqueuedAt, drainedAt: stamp.drainedAt, deliveredAt: handed?.at,
                    script: handed?.script))
        }
    }

    /// The page's web process answered delivery script `number`.
    private func scriptCompleted(_ number: UInt64, on name: UInt32) {
        guard let page = pages[name] else { return }
        let now = MonotonicClock.nanoseconds()
        if let index = page.waiting.firstIndex(where: { $0.script == number }) {
            pages[name]?.waiting[index].ranAt = now
        } else if let index = page.carried.firstIndex(where: { $0.script == number }) {
            pages[name]?.carried[index].ranAt = now
        }
    }

    /// Each page's bridge counters, for `status` beside the other message sources.
    var sourceCounters: [String: [String: Int]] {
        Dictionary(uniqueKeysWithValues: pages.values.map { ($0.view.bridge.name, $0.view.bridge.counters) })
    }

    /// Gives each page that has drawn but has no known web process one: WebKit says nothing about which process
    /// draws which view, so the web processes not yet given to a page go, oldest first, to those pages in the order
    /// they were opened (each view starts its process when it first loads, and again after a crash).
    private func attributeProcesses() {
        for (name, page) in pages where page.process.map({ !WebProcesses.isAlive($0) }) ?? false {
            pages[name]?.process = nil
        }
        let taken = Set(pages.values.compactMap(\.process))
        var free = WebProcesses.children().filter { !taken.contains($0) }
        for (name, _) in pages.filter({ $0.value.process == nil && $0.value.view.framesReceived > 0 })
            .sorted(by: { $0.value.opened < $1.value.opened })
        {
            guard !free.isEmpty else { return }
            pages[name]?.process = free.removeFirst()
        }
    }

    /// Per screen: what its page is doing.
    var vitals: [UInt32: [String: JSONValue]] {
        Dictionary(
            uniqueKeysWithValues: pages.map { name, page in
                let view = page.view
                var entry: [String: JSONValue] = [
                    "state": .string(Self.name(of: view.state)), "framesReceived": .integer(view.framesReceived),
                    "framesDropped": .integer(view.framesDropped), "framesUploaded": .integer(page.texture.uploads),
                    "crashes": .integer(view.crashes), "hangs": .integer(view.hangs),
                    "deliveriesDroppedWhileLoading": .integer(view.scriptsDroppedWhileLoading),
                    "hangRestarts": .integer(view.hangRestarts),
                ]
                if focus.keyboard == name { entry["keyboard"] = .bool(true) }
                if let limit = config.memoryLimitMiB { entry["memoryLimitMiB"] = .integer(limit) }
                if let process = page.process, let rss = WebProcesses.residentMiB(process) {
                    entry["webProcess"] = .object(["pid": .integer(Int(process)), "rssMiB": .number(rss)])
                }
                if !page.latencies.isEmpty {
                    let sorted = page.latencies.map(\.total).sorted()
                    let rank = { (p: Double) in
                        sorted[min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)]
                    }
                    entry["latency"] = .object([
                        "messages": .integer(sorted.count), "p50Ms": .number(rank(50)), "p99Ms": .number(rank(99)),
                        "to": .string("frameDone"), "stages": PageMessageTrace.summary(page.latencies),
                    ])
                }
                switch view.state {
                case .failed(let reason), .crashed(let reason, _): entry["reason"] = .string(reason)
                default: break
                }
                return (name, entry)
            })
    }

    static func name(of state: WebView.State) -> String {
        switch state {
        case .loading: "loading"
        case .shown: "shown"
        case .failed: "failed"
        case .crashed: "crashed"
        case .unresponsive: "unresponsive"
        }
    }

    /// For tests: ends the web process of the page on this screen as a crash would.
    func terminateWebProcess(of name: UInt32) { pages[name]?.view.terminateWebProcess() }

    /// Destroys every view and texture (at exit, while EGL is still alive).
    func tearDownAll(context: GraphicsContext) {
        for (name, page) in pages { close(name, page: page, context: context) }
    }
}
