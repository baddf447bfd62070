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
///
/// The pages' lifecycle is here; input focus, message tracing, web process attribution and the status each have an
/// extension of their own beside this file.
final class WebScreens {
    struct Page {
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

    /// WPE WebKit, opened with the first page (``startEngine(eglExtensions:)``) and kept until the process ends.
    private(set) var engine: WebEngine?
    var pages: [UInt32: Page] = [:]
    /// The URL each screen could not show (no engine, no view): not tried again on every render pass, only when
    /// the screen is asked to show another URL or stops showing it.
    private var failed: [UInt32: String] = [:]
    private let bus: MessageBus
    let config: WebConfig
    let logger: Logger
    /// The engine started: the caller puts its main context into the display thread's poll.
    var onEngineStarted: (WebEngine) -> Void = { _ in }
    /// Views made and destroyed so far, pages that could not be shown (no engine, no view) and why the last one could
    /// not, since the start, for `status`.
    private(set) var opened = 0
    private(set) var closed = 0
    private(set) var failures = 0
    private(set) var lastFailure: String?
    /// Which page has the keyboard, and where pointer and touch input went last (``InputFocus``).
    var focus = InputFocus()
    /// While the display thread handles one message: what each page is handed for it (the reply to the page's
    /// request, the events, the message itself) is held back, and ``releaseDeliveries()`` hands it over as one script
    /// per page, one IPC to its web process instead of one per packet.
    var holding = false

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
            lastFailure = "\(error)"
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

    /// For tests: ends the web process of the page on this screen as a crash would.
    func terminateWebProcess(of name: UInt32) { pages[name]?.view.terminateWebProcess() }

    /// Destroys every view and texture (at exit, while EGL is still alive).
    func tearDownAll(context: GraphicsContext) {
        for (name, page) in pages { close(name, page: page, context: context) }
    }
}
