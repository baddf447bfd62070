import CWaylandClient
import CWaylandProtocols
import Logging

/// The singleton globals Multiscreen binds, each at `min(advertised, supported)`.
///
/// Required: `wl_compositor`, `xdg_wm_base`. Everything else is optional and degrades a feature, never the
/// program: no `wp_presentation` means no latency statistics, no `zxdg_output_manager_v1` means names come
/// from `wl_output` v4 only, and so on.
public final class WaylandGlobals {
    public private(set) var compositor: OpaquePointer?
    public private(set) var wmBase: OpaquePointer?
    public private(set) var presentation: OpaquePointer?
    /// `wp_presentation.clock_id`: the clock every presentation timestamp is in (weston 10: CLOCK_MONOTONIC_RAW).
    public private(set) var presentationClock: Int32 = 1  // CLOCK_MONOTONIC until told otherwise
    public private(set) var xdgOutputManager: OpaquePointer?
    public private(set) var viewporter: OpaquePointer?
    public private(set) var fractionalScaleManager: OpaquePointer?
    public private(set) var idleInhibitManager: OpaquePointer?
    public private(set) var decorationManager: OpaquePointer?
    /// `wl_shm` and `wl_subcompositor`: shared frames for mirrors (one buffer shown on many surfaces).
    public private(set) var shm: OpaquePointer?
    public private(set) var subcompositor: OpaquePointer?
    /// `zwlr_output_power_manager_v1`: screens turned off by schedule are turned off for real (wlroots compositors).
    public private(set) var outputPowerManager: OpaquePointer?
    /// The connection the globals were bound on (not owned), for `wl_display.sync`.
    private var display: OpaquePointer?

    /// Versions this code handles every event of.
    public enum Supported {
        public static let compositor: UInt32 = 4
        public static let wmBase: UInt32 = 5
        public static let output: UInt32 = 4
        public static let xdgOutputManager: UInt32 = 3
        public static let presentation: UInt32 = 1
    }

    private let logger = Logger(label: "multiscreen.wayland")

    public init() {}

    deinit { destroy() }

    /// Binds `name` if it is one of the singletons; returns whether it was.
    @discardableResult
    public func bindIfSingleton(_ registry: Registry, name: UInt32, interface: String) -> Bool {
        display = registry.display
        switch interface {
        case "wl_compositor":
            guard let b = registry.bind(name, interface: ms_wl_compositor_interface(), supported: Supported.compositor)
            else { return true }
            compositor = b.proxy
        case "xdg_wm_base":
            guard let b = registry.bind(name, interface: ms_xdg_wm_base_interface(), supported: Supported.wmBase)
            else { return true }
            wmBase = b.proxy
            xdg_wm_base_add_listener(b.proxy, wmBaseListener, nil)
        case "wp_presentation":
            guard
                let b = registry.bind(
                    name, interface: ms_wp_presentation_interface(), supported: Supported.presentation)
            else { return true }
            presentation = b.proxy
            wp_presentation_add_listener(b.proxy, presentationListener, Unmanaged.passUnretained(self).toOpaque())
        case "zxdg_output_manager_v1":
            guard
                let b = registry.bind(
                    name, interface: ms_zxdg_output_manager_v1_interface(), supported: Supported.xdgOutputManager)
            else { return true }
            xdgOutputManager = b.proxy
        case "wp_viewporter":
            viewporter = registry.bind(name, interface: ms_wp_viewporter_interface(), supported: 1)?.proxy
        case "wp_fractional_scale_manager_v1":
            fractionalScaleManager =
                registry.bind(name, interface: ms_wp_fractional_scale_manager_v1_interface(), supported: 1)?.proxy
        case "zwp_idle_inhibit_manager_v1":
            idleInhibitManager =
                registry.bind(name, interface: ms_zwp_idle_inhibit_manager_v1_interface(), supported: 1)?.proxy
        case "zxdg_decoration_manager_v1":
            decorationManager =
                registry.bind(name, interface: ms_zxdg_decoration_manager_v1_interface(), supported: 1)?.proxy
        case "wl_shm":
            // v1 is all we use (format ARGB8888/XRGB8888, always supported); its `format` events are not needed.
            shm = registry.bind(name, interface: ms_wl_shm_interface(), supported: 1)?.proxy
            if let shm { wl_shm_add_listener(shm, shmListener, nil) }
        case "wl_subcompositor":
            subcompositor = registry.bind(name, interface: ms_wl_subcompositor_interface(), supported: 1)?.proxy
        case "zwlr_output_power_manager_v1":
            outputPowerManager =
                registry.bind(name, interface: ms_zwlr_output_power_manager_v1_interface(), supported: 1)?.proxy
        default:
            return false
        }
        return true
    }

    /// - Throws: ``WaylandError/missingGlobals(_:)`` naming every required global that is absent.
    public func checkRequired() throws {
        var missing: [String] = []
        if compositor == nil { missing.append("wl_compositor") }
        if wmBase == nil { missing.append("xdg_wm_base") }
        if !missing.isEmpty { throw WaylandError.missingGlobals(missing) }
    }

    /// A one-line summary for the log: which optional features are on.
    public var featureSummary: String {
        let features: [(String, OpaquePointer?)] = [
            ("presentation", presentation), ("xdg-output", xdgOutputManager), ("viewporter", viewporter),
            ("fractional-scale", fractionalScaleManager), ("idle-inhibit", idleInhibitManager),
            ("xdg-decoration", decorationManager), ("subcompositor", subcompositor),
            ("output-power", outputPowerManager),
        ]
        return features.map { "\($0.0)=\($0.1 == nil ? "no" : "yes")" }.joined(separator: " ")
    }

    /// Asks the compositor to answer once it has processed every request sent so far (`wl_display.sync`); `done`
    /// runs on the display thread when it has. Nil before any global was bound.
    public func requestSync(_ done: @escaping () -> Void) -> FrameCallback? {
        guard let display, let proxy = wl_display_sync(display) else { return nil }
        return FrameCallback(proxy: proxy) { _ in done() }
    }

    /// Destroys in reverse order of binding.
    public func destroy() {
        if let p = outputPowerManager { zwlr_output_power_manager_v1_destroy(p) }
        outputPowerManager = nil
        if let p = subcompositor { wl_subcompositor_destroy(p) }
        if let p = shm { wl_shm_destroy(p) }
        (subcompositor, shm) = (nil, nil)
        if let p = decorationManager { zxdg_decoration_manager_v1_destroy(p) }
        if let p = idleInhibitManager { zwp_idle_inhibit_manager_v1_destroy(p) }
        if let p = fractionalScaleManager { wp_fractional_scale_manager_v1_destroy(p) }
        if let p = viewporter { wp_viewporter_destroy(p) }
        if let p = xdgOutputManager { zxdg_output_manager_v1_destroy(p) }
        if let p = presentation { wp_presentation_destroy(p) }
        if let p = wmBase { xdg_wm_base_destroy(p) }
        if let p = compositor { wl_compositor_destroy(p) }
        (decorationManager, idleInhibitManager, fractionalScaleManager, viewporter) = (nil, nil, nil, nil)
        (xdgOutputManager, presentation, wmBase, compositor) = (nil, nil, nil, nil)
        display = nil
    }

    fileprivate func setPresentationClock(_ clock: UInt32) {
        presentationClock = Int32(bitPattern: clock)
        logger.debug("presentation clock \(clock)")
    }
}

/// wl_shm v1 announces its formats; XRGB8888, the only one used, is always supported (wayland.xml).
private nonisolated(unsafe) let shmListener: UnsafeMutablePointer<wl_shm_listener> = {
    let listener = UnsafeMutablePointer<wl_shm_listener>.allocate(capacity: 1)
    listener.initialize(to: wl_shm_listener(format: { _, _, _ in }))
    return listener
}()

/// xdg_wm_base.ping: "A client must respond to a ping event with a pong request or the client may be deemed
/// unresponsive" (xdg-shell.xml). Answered from the dispatch itself, so a busy render never delays it for long.
private nonisolated(unsafe) let wmBaseListener: UnsafeMutablePointer<xdg_wm_base_listener> = {
    let listener = UnsafeMutablePointer<xdg_wm_base_listener>.allocate(capacity: 1)
    listener.initialize(to: xdg_wm_base_listener(ping: { _, base, serial in xdg_wm_base_pong(base, serial) }))
    return listener
}()

private nonisolated(unsafe) let presentationListener: UnsafeMutablePointer<wp_presentation_listener> = {
    let listener = UnsafeMutablePointer<wp_presentation_listener>.allocate(capacity: 1)
    listener.initialize(
        to: wp_presentation_listener(clock_id: { data, _, clock in
            Unmanaged<WaylandGlobals>.fromOpaque(data!).takeUnretainedValue().setPresentationClock(clock)
        }))
    return listener
}()
