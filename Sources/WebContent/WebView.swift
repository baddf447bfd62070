internal import CWebEngine
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
///
/// The state lives here; each concern that works on it has a file of its own beside this one: frame import
/// (`WebView+Frames`), input (`WebView+Input`), the script queue (`WebView+Scripts`), the hang watchdog and crash
/// restarts (`WebView+Watchdog`), WebKit's signals (`WebView+Signals`).
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
    public internal(set) var state = State.loading
    /// A frame or the state changed: the screen showing this view must be drawn again.
    public var onChange: () -> Void = {}
    /// Web process ends so far, and frames received.
    public internal(set) var crashes = 0
    /// Times the web process stopped answering, and of those the times it was ended for it.
    public internal(set) var hangs = 0
    public internal(set) var hangRestarts = 0
    public internal(set) var framesReceived = 0
    public internal(set) var framesDropped = 0
    /// When the frame taken last was handed to us by wpebackend-fdo (`CLOCK_MONOTONIC` ns): where WebKit's part of a
    /// message's way ends and ours begins.
    public internal(set) var lastFrameExportedAt: UInt64 = 0
    var pendingFrameExportedAt: UInt64 = 0
    /// How long that frame may have waited for the display thread before it was handed to us, at most (ns): part of
    /// the time up to ``lastFrameExportedAt`` that is ours, not WebKit's (``MainContextPoll/readyWaitedAtMost``).
    public internal(set) var lastFrameWaitedAtMost: UInt64 = 0
    var pendingFrameWaitedAtMost: UInt64 = 0
    let mainContext: MainContextPoll
    /// The size of the last frame taken, in pixels.
    public internal(set) var frameSize: (width: Int32, height: Int32) = (0, 0)

    let logger: Logger
    var exportable: OpaquePointer?
    var backend: OpaquePointer?
    var view: UnsafeMutablePointer<WebKitWebView>?
    var manager: UnsafeMutablePointer<WebKitUserContentManager>?
    /// The newest frame not yet copied into the screen's texture (an older one is given back when a newer comes).
    var pendingFrame: OpaquePointer?
    /// A frame waits to be copied (``takeFrame(_:)``).
    public var hasFrameWaiting: Bool { pendingFrame != nil }
    /// A frame was taken and WebKit waits for `frame_complete` before drawing the next: sent once that frame of
    /// ours has been shown by the compositor (``framePresented()``).
    var frameCompletePending = false
    var restartSource: guint = 0
    /// Restarts after crashes: 1, 2, 4 … 30 s apart while the page keeps crashing, from 1 s again once it stayed
    /// up ``stableSeconds``.
    var restarts = RetrySchedule(initial: 1, maximum: WebView.maximumBackoff, stable: WebView.stableSeconds)
    var loadedAt: UInt64 = 0
    private var clientBox: Unmanaged<FrameClient>?
    /// Scripts handed to the page whose completion has not come back, by number, with the time each went
    /// (`CLOCK_MONOTONIC` ns): the web process answers every one, unless it is hung.
    var scriptsOutstanding: [UInt64: UInt64] = [:]
    /// Scripts handed to the page so far: the newest one's number (a delivery's number, for ``onScriptCompleted``).
    public internal(set) var scriptsSent: UInt64 = 0
    /// The page's document has finished loading: its own scripts (`receiveMessage`, its listeners) exist.
    var documentLoaded = false
    /// Scripts for a document still loading, with their numbers, sent in order when it has loaded: before that the
    /// page's `receiveMessage` does not exist, and a message delivered then would be lost.
    var scriptsAwaitingLoad: [(number: UInt64, script: String)] = []
    /// Scripts dropped, oldest first, because more than ``scriptsKeptWhileLoading`` waited for a load.
    public internal(set) var scriptsDroppedWhileLoading = 0
    static let scriptsKeptWhileLoading = 256
    /// The web process answered the script with this number (it ran, or failed): for the latency split.
    public var onScriptCompleted: (UInt64) -> Void = { _ in }
    /// Armed only while scripts are outstanding (an idle page costs no wakeups): checks the oldest one's age.
    var watchdogSource: guint = 0
    /// Armed while unresponsive: ends the web process when it fires.
    var hungSource: guint = 0
    /// The page is being ended because it hung: its termination is reported as that, not as a crash.
    var endingHungProcess = false
    let openedAt: UInt64
    /// The screen's integer scale: WebKit reads pointer and touch positions in device pixels (it divides them by
    /// the device scale factor), so positions in the screen's logical coordinates are multiplied by it.
    var scale = 1
    /// The pointer buttons held, as WPE's `wpe_input_pointer_modifier_button*` bits (`MouseEvent.buttons`).
    var buttonsHeld: UInt32 = 0
    /// The touch points that are down, in device pixels: WPE sends every point with each change.
    var touchPoints: [Int32: wpe_input_touch_event_raw] = [:]

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

    static func monotonicNanoseconds() -> UInt64 { MonotonicClock.nanoseconds() }
}
