import CWPEBackendFDO
import CWPEWebKit
import Glibc
import Logging
import Messaging

/// One page on one screen: a WPE view backend whose frames come to us (``WebEngine`` says how), the
/// `WebKitWebView` that loads the page into a web process, its user content manager (the bridge's script and
/// handlers), and the page's ``PageBridge``.
///
/// Owned by the application on the display thread: made when a screen starts showing a page, ``destroy()``ed when
/// it stops or the screen goes. Destroyed in reverse: the restart timer, the signal handlers, a frame still held
/// (given back), the bridge's ring, the view (whose backend's destroy notify frees the exportable backend when
/// WebKit lets go of it).
public final class WebView {
    /// What the page is doing, for the screen to show: its frames, or a placeholder saying why there are none.
    public enum State: Equatable, Sendable {
        /// Loading; nothing drawn yet.
        case loading
        /// Frames arrive.
        case shown
        /// The page could not be loaded: shown as an error card with the URL and the reason.
        case failed(reason: String)
        /// The web process ended; the view is reloaded after `retryInSeconds`.
        case crashed(reason: String, retryInSeconds: Double)
        /// The web process stopped answering (a script handed to it not run for ``unresponsiveSeconds``, or WebKit's
        /// own responsiveness check): it is ended and the page loaded again after ``hungSeconds`` unless it
        /// answers first.
        case unresponsive(endedInSeconds: Double)

        public var isUnresponsive: Bool {
            if case .unresponsive = self { return true }
            return false
        }
    }

    public let url: String
    public let bridge: PageBridge
    public private(set) var state = State.loading
    /// A frame or the state changed: the screen showing this view must be drawn again.
    public var onChange: () -> Void = {}
    /// Web process ends so far, and frames received.
    public private(set) var crashes = 0
    /// Times the web process stopped answering, and of those the times it was ended for it.
    public private(set) var hangs = 0
    public private(set) var hangRestarts = 0
    public private(set) var framesReceived = 0
    public private(set) var framesDropped = 0
    /// When the frame taken last was handed to us by wpebackend-fdo (`CLOCK_MONOTONIC` ns): where WebKit's part of a
    /// message's way ends and ours begins.
    public private(set) var lastFrameExportedAt: UInt64 = 0
    private var pendingFrameExportedAt: UInt64 = 0
    /// How long that frame may have waited for the display thread before it was handed to us, at most (ns): part of
    /// the time up to ``lastFrameExportedAt`` that is ours, not WebKit's (``MainContextPoll/readyWaitedAtMost``).
    public private(set) var lastFrameWaitedAtMost: UInt64 = 0
    private var pendingFrameWaitedAtMost: UInt64 = 0
    private let mainContext: MainContextPoll
    /// The size of the last frame taken, in pixels.
    public private(set) var frameSize: (width: Int32, height: Int32) = (0, 0)

    private let logger: Logger
    private var exportable: OpaquePointer?
    private var backend: OpaquePointer?
    private var view: UnsafeMutablePointer<WebKitWebView>?
    private var manager: UnsafeMutablePointer<WebKitUserContentManager>?
    /// The newest frame not yet copied into the screen's texture (an older one is given back when a newer comes).
    private var pendingFrame: OpaquePointer?
    /// A frame waits to be copied (``takeFrame(_:)``).
    public var hasFrameWaiting: Bool { pendingFrame != nil }
    /// A frame was taken and WebKit waits for `frame_complete` before drawing the next: sent once that frame of
    /// ours has been shown by the compositor (``framePresented()``).
    private var frameCompletePending = false
    private var restartSource: guint = 0
    /// Restarts after crashes: 1, 2, 4 … 30 s apart while the page keeps crashing, from 1 s again once it stayed
    /// up ``stableSeconds``.
    private var restarts = RetrySchedule(initial: 1, maximum: WebView.maximumBackoff, stable: WebView.stableSeconds)
    private var loadedAt: UInt64 = 0
    private var clientBox: Unmanaged<FrameClient>?
    /// Scripts handed to the page whose completion has not come back, by number, with the time each went
    /// (`CLOCK_MONOTONIC` ns): the web process answers every one, unless it is hung.
    private var scriptsOutstanding: [UInt64: UInt64] = [:]
    /// Scripts handed to the page so far: the newest one's number (a delivery's number, for ``onScriptCompleted``).
    public private(set) var scriptsSent: UInt64 = 0
    /// The page's document has finished loading: its own scripts (`receiveMessage`, its listeners) exist.
    private var documentLoaded = false
    /// Scripts for a document still loading, with their numbers, sent in order when it has loaded: before that the
    /// page's `receiveMessage` does not exist, and a message delivered then would be lost.
    private var scriptsAwaitingLoad: [(number: UInt64, script: String)] = []
    /// Scripts dropped, oldest first, because more than ``scriptsKeptWhileLoading`` waited for a load.
    public private(set) var scriptsDroppedWhileLoading = 0
    static let scriptsKeptWhileLoading = 256
    /// The web process answered the script with this number (it ran, or failed): for the latency split.
    public var onScriptCompleted: (UInt64) -> Void = { _ in }
    /// Armed only while scripts are outstanding (an idle page costs no wakeups): checks the oldest one's age.
    private var watchdogSource: guint = 0
    /// Armed while unresponsive: ends the web process when it fires.
    private var hungSource: guint = 0
    /// The page is being ended because it hung: its termination is reported as that, not as a crash.
    private var endingHungProcess = false
    private let openedAt: UInt64
    /// The screen's integer scale: WebKit reads pointer and touch positions in device pixels (it divides them by
    /// the device scale factor), so positions in the screen's logical coordinates are multiplied by it.
    private var scale = 1
    /// The pointer buttons held, as WPE's `wpe_input_pointer_modifier_button*` bits (`MouseEvent.buttons`).
    private var buttonsHeld: UInt32 = 0
    /// The touch points that are down, in device pixels: WPE sends every point with each change.
    private var touchPoints: [Int32: wpe_input_touch_event_raw] = [:]

    /// A script not run for this long means the web process is hung (WebKit's own responsiveness timeout is 3 s).
    static let unresponsiveSeconds = 3.0
    /// How long a hung web process may take to answer again before it is ended and the page loaded again.
    static let hungSeconds = 10.0
    /// How long a page must stay up after loading for its next crash to count as a first one again.
    static let stableSeconds = 10.0
    /// The longest wait before a crashed page is loaded again.
    static let maximumBackoff = 30.0

    /// - Parameters:
    ///   - width, height: the screen's logical size; `scale`: its integer buffer scale (the page is rendered at
    ///     width × scale by height × scale pixels).
    public init(
        engine: WebEngine, url: String, width: Int, height: Int, scale: Int, bridge: PageBridge, logger: Logger
    ) throws(WebContentError) {
        openedAt = Self.monotonicNanoseconds()
        mainContext = engine.mainContext
        self.url = url
        self.bridge = bridge
        self.logger = logger
        self.scale = max(scale, 1)
        let box = Unmanaged.passRetained(FrameClient())
        guard
            let exportable = wpe_view_backend_exportable_fdo_create(
                FrameClient.table, box.toOpaque(), UInt32(max(width, 1)), UInt32(max(height, 1)))
        else {
            box.release()
            throw WebContentError.view("wpe_view_backend_exportable_fdo_create failed")
        }
        clientBox = box
        self.exportable = exportable
        let backend = wpe_view_backend_exportable_fdo_get_view_backend(exportable)
        self.backend = backend
        wpe_view_backend_add_activity_state(
            backend,
            UInt32(
                wpe_view_activity_state_visible.rawValue | wpe_view_activity_state_focused.rawValue
                    | wpe_view_activity_state_in_window.rawValue))
        // WebKit owns the backend wrapper; when it lets go, the exportable backend and the frame client go too.
        let webBackend = webkit_web_view_backend_new(
            backend,
            { data in
                guard let data else { return }
                let box = Unmanaged<FrameClient>.fromOpaque(data)
                if let exportable = box.takeUnretainedValue().exportable {
                    wpe_view_backend_exportable_fdo_destroy(exportable)
                }
                box.release()
            }, box.toOpaque())
        box.takeUnretainedValue().exportable = exportable
        let manager = webkit_user_content_manager_new()!
        self.manager = manager
        let script = webkit_user_script_new(
            BridgeScript.source, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START,
            nil, nil)
        webkit_user_content_manager_add_script(manager, script)
        webkit_user_script_unref(script)
        let view = multiscreen_web_view_new(webBackend, engine.context, manager)!
        self.view = view
        // Only now: the backend tells the view its scale, and WebKit starts listening when the view is made (a
        // scale dispatched before is lost, and the page is drawn at scale 1).
        wpe_view_backend_dispatch_set_device_scale_factor(backend, Float(self.scale))
        let settings = webkit_web_view_get_settings(view)
        // A local app directory (file://) loads its own scripts and styles next to the page.
        webkit_settings_set_allow_file_access_from_file_urls(settings, 1)
        box.takeUnretainedValue().view = self
        connectSignals()
        bridge.run = { [unowned self] script in run(script) }
        bridge.pageURL = { [unowned self] in
            guard let view = self.view, let uri = webkit_web_view_get_uri(view) else { return nil }
            return String(cString: uri)
        }
        webkit_web_view_load_uri(view, url)
        logger.info("web view: loading \(url.logSafeURL) at \(width)x\(height) scale \(scale)")
    }

    // MARK: - Frames

    /// Copies the newest frame, if one waits, with `upload` (pixels in B, G, R, A byte order, rows `stride` bytes
    /// apart) and gives the buffer back to WPE at once. - Returns: whether a frame was uploaded.
    @discardableResult
    public func takeFrame(
        _ upload: (_ pixels: UnsafeRawPointer, _ width: Int32, _ height: Int32, _ stride: Int32) -> Void
    ) -> Bool {
        guard let frame = pendingFrame, let exportable else { return false }
        pendingFrame = nil
        lastFrameExportedAt = pendingFrameExportedAt
        lastFrameWaitedAtMost = pendingFrameWaitedAtMost
        var pixels = multiscreen_shm_pixels()
        if multiscreen_shm_begin(frame, &pixels), let data = pixels.data {
            if frameSize != (pixels.width, pixels.height) {
                frameSize = (pixels.width, pixels.height)
                logger.info("web view: \(url.logSafeURL) frames are \(pixels.width)x\(pixels.height) pixels")
            }
            upload(data, pixels.width, pixels.height, pixels.stride)
            multiscreen_shm_end(frame)
        }
        wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer(exportable, frame)
        frameCompletePending = true
        return true
    }

    /// The screen's frame that showed the last frame taken was shown by the compositor: WebKit may draw the next.
    public func framePresented() {
        guard frameCompletePending, let exportable else { return }
        frameCompletePending = false
        wpe_view_backend_exportable_fdo_dispatch_frame_complete(exportable)
    }

    fileprivate func exported(_ frame: OpaquePointer) {
        framesReceived += 1
        pendingFrameExportedAt = Self.monotonicNanoseconds()
        pendingFrameWaitedAtMost = mainContext.readyWaitedAtMost
        if framesReceived == 1 {
            let elapsed = Double(Self.monotonicNanoseconds() &- openedAt) / 1e6
            logger.info(
                "web view: first frame of \(url.logSafeURL) \((elapsed * 10).rounded() / 10) ms after it was opened")
        }
        if let older = pendingFrame, let exportable {
            // Never hold a frame past the next one.
            framesDropped += 1
            wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer(exportable, older)
        }
        pendingFrame = frame
        if state != .shown, case .loading = state { state = .shown }
        onChange()
    }

    // MARK: - Input

    /// A key press for the page (press and release: the seat reports presses and repeats). `keysym` is an
    /// xkbcommon keysym, which is what WPE's key codes are; a Compose result without a keysym goes as the key
    /// codes of its characters. `modifiers`: control 1, shift 2, alt 4, meta 8 (WPE's bits).
    public func key(keysym: UInt32, text: String, modifiers: UInt32) {
        guard let backend else { return }
        let codes = keysym != 0 ? [keysym] : text.unicodeScalars.map { wpe_unicode_to_key_code($0.value) }
        let time = UInt32(truncatingIfNeeded: Self.monotonicNanoseconds() / 1_000_000)
        for code in codes where code != 0 {
            var event = wpe_input_keyboard_event(
                time: time, key_code: code, hardware_key_code: 0, pressed: true, modifiers: modifiers)
            wpe_view_backend_dispatch_keyboard_event(backend, &event)
            event.pressed = false
            wpe_view_backend_dispatch_keyboard_event(backend, &event)
        }
    }

    /// The pointer moved to (x, y), in the screen's logical coordinates.
    public func pointerMotion(x: Double, y: Double) {
        guard let backend else { return }
        let (px, py) = devicePixels(x, y)
        var event = wpe_input_pointer_event(
            type: wpe_input_pointer_event_type_motion, time: Self.eventTime(), x: px, y: py, button: 0, state: 0,
            modifiers: buttonsHeld)
        wpe_view_backend_dispatch_pointer_event(backend, &event)
    }

    /// A pointer button (a Linux `BTN_*` code, as `wl_pointer.button` carries it) went down or up at (x, y), in
    /// the screen's logical coordinates. Buttons other than left, right and middle mean nothing to a page.
    public func pointerButton(_ code: UInt32, pressed: Bool, x: Double, y: Double) {
        guard let backend, let (button, bit) = Self.wpeButton(code) else { return }
        if pressed { buttonsHeld |= bit } else { buttonsHeld &= ~bit }
        let (px, py) = devicePixels(x, y)
        var event = wpe_input_pointer_event(
            type: wpe_input_pointer_event_type_button, time: Self.eventTime(), x: px, y: py, button: button,
            state: pressed ? 1 : 0, modifiers: buttonsHeld)
        wpe_view_backend_dispatch_pointer_event(backend, &event)
    }

    /// WPE's button numbers (WebKit reads 1 as left, 2 as right, 3 as middle) and `MouseEvent.buttons` bits for a
    /// Linux `BTN_*` code (`BTN_LEFT` 0x110, `BTN_RIGHT` 0x111, `BTN_MIDDLE` 0x112).
    static func wpeButton(_ code: UInt32) -> (button: UInt32, bit: UInt32)? {
        switch code {
        case 0x110: (1, wpe_input_pointer_modifier_button1.rawValue)
        case 0x111: (2, wpe_input_pointer_modifier_button2.rawValue)
        case 0x112: (3, wpe_input_pointer_modifier_button3.rawValue)
        default: nil
        }
    }

    /// Scrolling by (dx, dy) in logical units (positive: down / right, as Wayland counts it) with the pointer at
    /// (x, y). Sent as one smooth two-axis event; WebKit counts a wheel the other way round (positive: up / left)
    /// and divides the deltas by the scale like positions.
    public func scroll(dx: Double, dy: Double, x: Double, y: Double) {
        guard let backend, dx != 0 || dy != 0 else { return }
        let (px, py) = devicePixels(x, y)
        let type = wpe_input_axis_event_type(
            wpe_input_axis_event_type_mask_2d.rawValue | wpe_input_axis_event_type_motion_smooth.rawValue)
        var event = wpe_input_axis_2d_event(
            base: wpe_input_axis_event(
                type: type, time: Self.eventTime(), x: px, y: py, axis: 0, value: 0, modifiers: buttonsHeld),
            x_axis: -dx * Double(scale), y_axis: -dy * Double(scale))
        withUnsafeMutablePointer(to: &event) { pointer in
            pointer.withMemoryRebound(to: wpe_input_axis_event.self, capacity: 1) { base in
                wpe_view_backend_dispatch_axis_event(backend, base)
            }
        }
    }

    /// What a touch point did.
    public enum TouchPhase: Sendable {
        case down, motion, up
    }

    /// Touch point `id` went down, moved or lifted at (x, y), in the screen's logical coordinates. WPE sends the
    /// changed point with every point that is down (the others as they last were).
    public func touch(_ phase: TouchPhase, id: Int32, x: Double, y: Double) {
        guard let backend else { return }
        if phase != .down && touchPoints[id] == nil { return }
        let type =
            switch phase {
            case .down: wpe_input_touch_event_type_down
            case .motion: wpe_input_touch_event_type_motion
            case .up: wpe_input_touch_event_type_up
            }
        let time = Self.eventTime()
        let (px, py) = devicePixels(x, y)
        touchPoints[id] = wpe_input_touch_event_raw(type: type, time: time, id: id, x: px, y: py)
        var points = touchPoints.values.sorted { $0.id < $1.id }
        if phase == .up { touchPoints[id] = nil }
        points.withUnsafeMutableBufferPointer { buffer in
            var event = wpe_input_touch_event(
                touchpoints: buffer.baseAddress, touchpoints_length: UInt64(buffer.count), type: type, id: id,
                time: time, modifiers: 0)
            wpe_view_backend_dispatch_touch_event(backend, &event)
        }
    }

    /// The compositor took the touch sequence over: every point that is down lifts where it is (WPE has no cancel).
    public func cancelTouches() {
        for point in touchPoints.values.sorted(by: { $0.id < $1.id }) {
            touch(.up, id: point.id, x: Double(point.x) / Double(scale), y: Double(point.y) / Double(scale))
        }
    }

    private func devicePixels(_ x: Double, _ y: Double) -> (Int32, Int32) {
        (Int32(clamping: Int((x * Double(scale)).rounded())), Int32(clamping: Int((y * Double(scale)).rounded())))
    }

    /// Event times in milliseconds on one monotonic clock (WebKit compares them with each other only).
    private static func eventTime() -> UInt32 { UInt32(truncatingIfNeeded: monotonicNanoseconds() / 1_000_000) }

    // MARK: - Size, reload

    /// The screen's size or scale changed.
    public func resize(width: Int, height: Int, scale: Int) {
        guard let backend else { return }
        self.scale = max(scale, 1)
        wpe_view_backend_dispatch_set_device_scale_factor(backend, Float(max(scale, 1)))
        wpe_view_backend_dispatch_set_size(backend, UInt32(max(width, 1)), UInt32(max(height, 1)))
    }

    public func reload() {
        guard let view else { return }
        cancelRestart()
        state = .loading
        webkit_web_view_load_uri(view, url)
        onChange()
    }

    // MARK: - Native → page

    private func run(_ script: String) {
        guard view != nil else { return }
        scriptsSent += 1
        guard documentLoaded else {
            if scriptsAwaitingLoad.count == Self.scriptsKeptWhileLoading {
                scriptsAwaitingLoad.removeFirst()
                scriptsDroppedWhileLoading += 1
                logger.warning(
                    "web view \(url.logSafeURL): \(Self.scriptsKeptWhileLoading) deliveries wait for the page to load; dropped the oldest"
                )
            }
            scriptsAwaitingLoad.append((scriptsSent, script))
            return
        }
        send(script, number: scriptsSent)
    }

    private func send(_ script: String, number: UInt64) {
        guard let view else { return }
        scriptsOutstanding[number] = Self.monotonicNanoseconds()
        // The completion may come after this view is gone: it finds the view through a box that holds it weakly.
        let box = Unmanaged.passRetained(ScriptCompletion(view: self, number: number))
        webkit_web_view_run_javascript(
            view, script, nil,
            { source, result, data in
                guard let data else { return }
                let completion = Unmanaged<ScriptCompletion>.fromOpaque(data).takeRetainedValue()
                if let source, let result { multiscreen_finish_script(source, result) }
                completion.view?.scriptCompleted(completion.number)
            }, box.toOpaque())
        armWatchdog()
    }

    // MARK: - Responsiveness

    fileprivate func scriptCompleted(_ number: UInt64) {
        scriptsOutstanding[number] = nil
        onScriptCompleted(number)
        if scriptsOutstanding.isEmpty {
            cancelWatchdog()
            if state.isUnresponsive { responsive() }
        }
    }

    private func armWatchdog() {
        guard watchdogSource == 0, let oldest = scriptsOutstanding.values.min() else { return }
        let age = Double(Self.monotonicNanoseconds() &- oldest) / 1e9
        let wait = max(Self.unresponsiveSeconds - age, 0.05)
        watchdogSource = g_timeout_add(
            guint(wait * 1000),
            { data in
                guard let data else { return 0 }
                let page = Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue()
                page.watchdogSource = 0
                page.watchdogFired()
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    private func cancelWatchdog() {
        if watchdogSource != 0 { g_source_remove(watchdogSource) }
        watchdogSource = 0
    }

    private func watchdogFired() {
        guard let oldest = scriptsOutstanding.values.min() else { return }
        if Double(Self.monotonicNanoseconds() &- oldest) / 1e9 >= Self.unresponsiveSeconds {
            unresponsive(because: "a script waited \(Self.unresponsiveSeconds) s")
        } else {
            armWatchdog()
        }
    }

    /// WebKit's own check (it times the web process's answers to input events and navigations) changed its mind.
    private func responsivenessChanged() {
        guard let view else { return }
        if webkit_web_view_get_is_web_process_responsive(view) == 0 {
            unresponsive(because: "WebKit's responsiveness check")
        } else if state.isUnresponsive && scriptsOutstanding.isEmpty {
            responsive()
        }
    }

    private func unresponsive(because why: String) {
        guard !state.isUnresponsive, hungSource == 0 else { return }
        switch state {
        case .failed, .crashed: return  // no process to wait for
        default: break
        }
        hangs += 1
        logger.error(
            "web view \(url.logSafeURL): the web process is not responding (\(why)); ending it in \(Self.hungSeconds) s unless it answers"
        )
        state = .unresponsive(endedInSeconds: Self.hungSeconds)
        hungSource = g_timeout_add(
            guint(Self.hungSeconds * 1000),
            { data in
                guard let data else { return 0 }
                let page = Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue()
                page.hungSource = 0
                page.endHungProcess()
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
        onChange()
    }

    private func responsive() {
        cancelHung()
        logger.notice("web view \(url.logSafeURL): the web process answers again")
        state = framesReceived > 0 ? .shown : .loading
        onChange()
    }

    private func endHungProcess() {
        guard let view else { return }
        hangRestarts += 1
        endingHungProcess = true
        webkit_web_view_terminate_web_process(view)
    }

    private func cancelHung() {
        if hungSource != 0 { g_source_remove(hungSource) }
        hungSource = 0
    }

    // MARK: - Signals

    private func connectSignals() {
        guard let view, let manager else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        for handler in ["multiscreen", "sendMessage"] {
            webkit_user_content_manager_register_script_message_handler(manager, handler)
        }
        _ = multiscreen_connect_script_message(
            manager, "script-message-received::multiscreen",
            { _, result, data in
                guard let result, let data else { return }
                let page = Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue()
                page.bridge.received(multiscreen: WebView.text(of: result, stringsAreJSON: true))
            }, me)
        _ = multiscreen_connect_script_message(
            manager, "script-message-received::sendMessage",
            { _, result, data in
                guard let result, let data else { return }
                let page = Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue()
                page.bridge.received(sendMessage: WebView.text(of: result, stringsAreJSON: false))
            }, me)
        _ = multiscreen_connect_load_changed(
            view,
            { _, event, data in
                guard let data else { return }
                let page = Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue()
                if event == WEBKIT_LOAD_STARTED { page.documentLoaded = false }
                if event == WEBKIT_LOAD_COMMITTED { page.loadCommitted() }
                if event == WEBKIT_LOAD_FINISHED { page.loadFinished() }
            }, me)
        _ = multiscreen_connect_load_failed(
            view,
            { _, _, uri, error, data in
                guard let data else { return 0 }
                let reason = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
                let failing = uri.map { String(cString: $0) } ?? ""
                Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue().loadFailed(uri: failing, reason: reason)
                return 1
            }, me)
        _ = multiscreen_connect_responsive(
            view,
            { _, _, data in
                guard let data else { return }
                Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue().responsivenessChanged()
            }, me)
        _ = multiscreen_connect_terminated(
            view,
            { _, reason, data in
                guard let data else { return }
                Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue().terminated(reason)
            }, me)
    }

    /// A script message as text: a JavaScript string as it is (the `multiscreen` handler then reads it as JSON),
    /// anything else as its JSON (`sendMessage` with an object sends that JSON as text).
    private static func text(of result: OpaquePointer, stringsAreJSON: Bool) -> String {
        var isString: gboolean = 0
        guard let raw = multiscreen_script_message_text(result, &isString) else { return "" }
        defer { g_free(raw) }
        return String(cString: raw)
    }

    /// A web process now shows the page. WebKit 2.38 does not count the view, visible from its start, as a visible
    /// page of the web process that commits its load (seen here: WebKit's background responsiveness check, which
    /// runs only for a process without a visible page, pinged that process 20, 40, 80 s … after the load, each ping
    /// a wakeup of our display thread and of WebKit's IPC thread; docs/benchmarks.md). Saying again that the view
    /// is visible makes WebKit count it, and the pings stop.
    private func loadCommitted() {
        guard let backend else { return }
        let visible = wpe_view_activity_state_visible.rawValue
        wpe_view_backend_remove_activity_state(backend, visible)
        wpe_view_backend_add_activity_state(backend, visible)
    }

    private func loadFinished() {
        loadedAt = Self.monotonicNanoseconds()

        if case .failed = state { return }
        logger.info("web view: loaded \(url.logSafeURL)")
        documentLoaded = true
        let waiting = scriptsAwaitingLoad
        scriptsAwaitingLoad = []
        for (number, script) in waiting { send(script, number: number) }
        onChange()
    }

    private func loadFailed(uri: String, reason: String) {
        // A navigation replaced by another (a reload, a new URL) reports "cancelled": not a failure of the page.
        if reason.lowercased().contains("cancel") { return }
        logger.warning("web view: cannot load \(uri.logSafeURL): \(reason)")
        state = .failed(reason: reason)
        onChange()
    }

    private func terminated(_ reason: WebKitWebProcessTerminationReason) {
        crashes += 1
        let hung = endingHungProcess
        endingHungProcess = false
        cancelHung()
        cancelWatchdog()
        // The old process answers none of the scripts it had: their completions (with errors) mean nothing now.
        scriptsOutstanding = [:]
        // Until the page has loaded again, deliveries wait for it.
        documentLoaded = false
        let why =
            switch reason {
            case _ where hung: "the web process stopped responding"
            case WEBKIT_WEB_PROCESS_CRASHED: "the web process crashed"
            case WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT: "the web process exceeded its memory limit"
            default: "the web process was terminated"
            }
        let now = Self.monotonicNanoseconds()
        let delay = restarts.failed(afterLasting: loadedAt == 0 ? 0 : Double(now &- loadedAt) / 1e9)
        logger.error("web view \(url.logSafeURL): \(why); loading it again in \(delay) s")
        if let frame = pendingFrame, let exportable {
            wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer(exportable, frame)
        }
        pendingFrame = nil
        frameCompletePending = false
        state = .crashed(reason: why, retryInSeconds: delay)
        cancelRestart()
        restartSource = g_timeout_add(
            guint(delay * 1000),
            { data in
                guard let data else { return 0 }
                let page = Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue()
                page.restartSource = 0
                page.reload()
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
        onChange()
    }

    private func cancelRestart() {
        if restartSource != 0 { g_source_remove(restartSource) }
        restartSource = 0
    }

    /// For tests and diagnostics: ends the web process as a crash would.
    public func terminateWebProcess() {
        guard let view else { return }
        webkit_web_view_terminate_web_process(view)
    }

    // MARK: - Teardown

    public func destroy() {
        cancelRestart()
        cancelHung()
        cancelWatchdog()
        scriptsOutstanding = [:]
        bridge.run = { _ in }
        bridge.pageURL = { nil }
        bridge.stop()
        if let manager {
            g_signal_handlers_disconnect_matched(
                manager, G_SIGNAL_MATCH_DATA, 0, 0, nil, nil, Unmanaged.passUnretained(self).toOpaque())
            for handler in ["multiscreen", "sendMessage"] {
                webkit_user_content_manager_unregister_script_message_handler(manager, handler)
            }
        }
        if let view {
            g_signal_handlers_disconnect_matched(
                view, G_SIGNAL_MATCH_DATA, 0, 0, nil, nil, Unmanaged.passUnretained(self).toOpaque())
        }
        if let frame = pendingFrame, let exportable {
            wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer(exportable, frame)
        }
        pendingFrame = nil
        clientBox?.takeUnretainedValue().view = nil
        clientBox = nil
        exportable = nil
        backend = nil
        if let view { g_object_unref(view) }
        view = nil
        if let manager { g_object_unref(manager) }
        manager = nil
        logger.info("web view closed: \(url.logSafeURL)")
    }

    private static func monotonicNanoseconds() -> UInt64 { MonotonicClock.nanoseconds() }
}

/// A script handed to a page: its completion finds the view through this box, which holds it weakly (WebKit may
/// complete a script after the view is gone).
private final class ScriptCompletion {
    weak var view: WebView?
    let number: UInt64

    init(view: WebView, number: UInt64) {
        self.view = view
        self.number = number
    }
}

/// The exportable backend's client: receives frames for a view. A box of its own, because WebKit may free the
/// backend after the ``WebView`` is gone; it forgets the view on ``WebView/destroy()`` and is released by the
/// backend's destroy notify.
private final class FrameClient {
    weak var view: WebView?
    var exportable: OpaquePointer?

    /// The client table wpebackend-fdo calls, at a fixed address for the life of the process.
    nonisolated(unsafe) static let table: UnsafeMutablePointer<wpe_view_backend_exportable_fdo_client> = {
        let table = UnsafeMutablePointer<wpe_view_backend_exportable_fdo_client>.allocate(capacity: 1)
        table.initialize(
            to: wpe_view_backend_exportable_fdo_client(
                export_buffer_resource: nil, export_dmabuf_resource: nil,
                export_shm_buffer: { data, buffer in
                    guard let data, let buffer else { return }
                    let client = Unmanaged<FrameClient>.fromOpaque(data).takeUnretainedValue()
                    if let view = client.view {
                        view.exported(buffer)
                    } else if let exportable = client.exportable {
                        wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer(exportable, buffer)
                    }
                }, _wpe_reserved0: nil, _wpe_reserved1: nil))
        return table
    }()
}
