import CWaylandClient
import CWaylandProtocols
import Logging

/// One fullscreen `xdg_toplevel` on one output, with the per-surface extras the compositor offers.
///
/// Created in this order, destroyed in reverse by ``destroy()``: `wl_surface` → `wp_viewport` →
/// `wp_fractional_scale_v1` → `xdg_surface` → `xdg_toplevel` → `zxdg_toplevel_decoration_v1` →
/// `zwp_idle_inhibitor_v1`. The EGL window that draws into the surface belongs to the caller and must be
/// destroyed before this window: EGL still writes into the surface until its window is gone.
public final class ToplevelWindow {
    public private(set) var surface: OpaquePointer?
    public private(set) var viewport: OpaquePointer?
    public private(set) var fractionalScale: OpaquePointer?
    public private(set) var xdgSurface: OpaquePointer?
    public private(set) var toplevel: OpaquePointer?
    public private(set) var decoration: OpaquePointer?
    public private(set) var idleInhibitor: OpaquePointer?

    /// A complete configure sequence: the toplevel's size (0 = "you decide") and the serial to acknowledge.
    public var onConfigure: (_ width: Int32, _ height: Int32, _ serial: UInt32) -> Void = { _, _, _ in }
    /// `xdg_toplevel.close`: the compositor asks us to close. Multiscreen tears the window down but lives on.
    public var onClose: () -> Void = {}
    /// `wp_fractional_scale_v1.preferred_scale`, in 120ths.
    public var onPreferredScale: (UInt32) -> Void = { _ in }

    private var pendingWidth: Int32 = 0
    private var pendingHeight: Int32 = 0
    private let logger = Logger(label: "multiscreen.wayland")

    /// The surface's identity, as input events name it.
    public var id: SurfaceID? { SurfaceID(surface) }

    /// Creates the surface and asks for it to be fullscreen on `output` (nil: wherever the compositor chooses);
    /// the first configure follows.
    public init(globals: WaylandGlobals, fullscreenOn output: Output?, appID: String, title: String) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        surface = wl_compositor_create_surface(globals.compositor)
        if let viewporter = globals.viewporter {
            viewport = wp_viewporter_get_viewport(viewporter, surface)
        }
        if let manager = globals.fractionalScaleManager, viewport != nil {
            fractionalScale = wp_fractional_scale_manager_v1_get_fractional_scale(manager, surface)
            wp_fractional_scale_v1_add_listener(fractionalScale, fractionalScaleListener, me)
        }
        xdgSurface = xdg_wm_base_get_xdg_surface(globals.wmBase, surface)
        xdg_surface_add_listener(xdgSurface, xdgSurfaceListener, me)
        toplevel = xdg_surface_get_toplevel(xdgSurface)
        xdg_toplevel_add_listener(toplevel, toplevelListener, me)
        xdg_toplevel_set_app_id(toplevel, appID)
        xdg_toplevel_set_title(toplevel, title)
        xdg_toplevel_set_fullscreen(toplevel, output?.proxy)
        if let manager = globals.decorationManager {
            // A fullscreen window shows no decorations either way; asking for server-side ones keeps
            // compositors from expecting client-drawn borders if the window is ever un-fullscreened.
            decoration = zxdg_decoration_manager_v1_get_toplevel_decoration(manager, toplevel)
            zxdg_toplevel_decoration_v1_add_listener(decoration, decorationListener, nil)
            zxdg_toplevel_decoration_v1_set_mode(decoration, ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE.rawValue)
        }
        if let manager = globals.idleInhibitManager {
            // Signage must never blank: inhibit idle while this surface is visible (idle-inhibit-unstable-v1).
            idleInhibitor = zwp_idle_inhibit_manager_v1_create_inhibitor(manager, surface)
        }
        // xdg-shell: "After creating a role-specific object and setting it up, the client must perform an
        // initial commit without any buffer attached" — the compositor answers with the first configure.
        wl_surface_commit(surface)
    }

    deinit { destroy() }

    public func setTitle(_ title: String) { xdg_toplevel_set_title(toplevel, title) }

    /// Whether this surface keeps the outputs awake (idle-inhibit, as every window does from its start): released
    /// while its screen is off by schedule, so that the compositor's own power saving may turn the output off.
    public func inhibitIdle(_ inhibit: Bool, globals: WaylandGlobals) {
        if inhibit, idleInhibitor == nil, let manager = globals.idleInhibitManager {
            idleInhibitor = zwp_idle_inhibit_manager_v1_create_inhibitor(manager, surface)
        } else if !inhibit, let inhibitor = idleInhibitor {
            zwp_idle_inhibitor_v1_destroy(inhibitor)
            idleInhibitor = nil
        }
    }

    public func acknowledge(serial: UInt32) { xdg_surface_ack_configure(xdgSurface, serial) }

    public func commit() { wl_surface_commit(surface) }

    public func setBufferScale(_ scale: Int32) { wl_surface_set_buffer_scale(surface, scale) }

    /// Declares the whole `width`×`height` surface opaque (applies at the next commit), so the compositor skips
    /// blending it even though our buffers carry an alpha channel.
    public func setOpaque(width: Int32, height: Int32, compositor: OpaquePointer?) {
        guard let region = wl_compositor_create_region(compositor) else { return }
        wl_region_add(region, 0, 0, width, height)
        wl_surface_set_opaque_region(surface, region)
        // "The compositor ignores the parts of the opaque region that fall outside of the surface" and the region
        // is copied at set time: it can be destroyed right away (wayland.xml, wl_surface.set_opaque_region).
        wl_region_destroy(region)
    }

    /// Maps the whole buffer onto `width`×`height` surface coordinates (fractional scaling).
    public func setViewportDestination(width: Int32, height: Int32) {
        guard let viewport else { return }
        wp_viewport_set_destination(viewport, width, height)
    }

    /// Unsets the viewport's destination (viewporter.xml: -1, -1), so the buffer's size and scale alone give the
    /// surface's size again.
    public func clearViewportDestination() {
        guard let viewport else { return }
        wp_viewport_set_destination(viewport, -1, -1)
    }

    /// Requests a `wl_surface.frame` callback for the next commit.
    public func requestFrame(_ done: @escaping (UInt32) -> Void) -> FrameCallback? {
        guard let callback = wl_surface_frame(surface) else { return nil }
        return FrameCallback(proxy: callback, done: done)
    }

    /// Destroys every object in reverse order of creation. Safe to call twice.
    public func destroy() {
        if let p = idleInhibitor { zwp_idle_inhibitor_v1_destroy(p) }
        if let p = decoration { zxdg_toplevel_decoration_v1_destroy(p) }
        if let p = toplevel { xdg_toplevel_destroy(p) }
        if let p = xdgSurface { xdg_surface_destroy(p) }
        if let p = fractionalScale { wp_fractional_scale_v1_destroy(p) }
        if let p = viewport { wp_viewport_destroy(p) }
        if let p = surface { wl_surface_destroy(p) }
        (idleInhibitor, decoration, toplevel, xdgSurface) = (nil, nil, nil, nil)
        (fractionalScale, viewport, surface) = (nil, nil, nil)
    }

    fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> ToplevelWindow {
        Unmanaged<ToplevelWindow>.fromOpaque(data!).takeUnretainedValue()
    }

    fileprivate func toplevelConfigure(width: Int32, height: Int32) {
        pendingWidth = width
        pendingHeight = height
    }

    fileprivate func surfaceConfigure(serial: UInt32) {
        onConfigure(pendingWidth, pendingHeight, serial)
    }
}

private nonisolated(unsafe) let xdgSurfaceListener: UnsafeMutablePointer<xdg_surface_listener> = {
    let listener = UnsafeMutablePointer<xdg_surface_listener>.allocate(capacity: 1)
    listener.initialize(
        to: xdg_surface_listener(configure: { data, _, serial in
            ToplevelWindow.from(data).surfaceConfigure(serial: serial)
        }))
    return listener
}()

private nonisolated(unsafe) let toplevelListener: UnsafeMutablePointer<xdg_toplevel_listener> = {
    let listener = UnsafeMutablePointer<xdg_toplevel_listener>.allocate(capacity: 1)
    listener.initialize(
        to: xdg_toplevel_listener(
            configure: { data, _, width, height, _ in
                ToplevelWindow.from(data).toplevelConfigure(width: width, height: height)
            },
            close: { data, _ in
                // The handler destroys this very window (Application tears the screen down and reopens it later):
                // keep the object alive until the handler has returned, as FrameCallback does.
                let window = ToplevelWindow.from(data)
                withExtendedLifetime(window) { window.onClose() }
            },
            // v4: a fullscreen window's size comes from configure; bounds only matter for floating windows.
            configure_bounds: { _, _, _, _ in },
            // v5: we never show a window menu or minimise, so the capabilities change nothing.
            wm_capabilities: { _, _, _ in }))
    return listener
}()

private nonisolated(unsafe) let fractionalScaleListener: UnsafeMutablePointer<wp_fractional_scale_v1_listener> = {
    let listener = UnsafeMutablePointer<wp_fractional_scale_v1_listener>.allocate(capacity: 1)
    listener.initialize(
        to: wp_fractional_scale_v1_listener(preferred_scale: { data, _, scale in
            ToplevelWindow.from(data).onPreferredScale(scale)
        }))
    return listener
}()

/// The compositor's decoration decision changes nothing for a fullscreen window, but the slot must be filled.
private nonisolated(unsafe) let decorationListener: UnsafeMutablePointer<zxdg_toplevel_decoration_v1_listener> = {
    let listener = UnsafeMutablePointer<zxdg_toplevel_decoration_v1_listener>.allocate(capacity: 1)
    listener.initialize(to: zxdg_toplevel_decoration_v1_listener(configure: { _, _, _ in }))
    return listener
}()
