import CWaylandClient
import CWaylandProtocols

/// How a window shows a shared frame scaled to its output with the aspect ratio kept: the window's own surface shows
/// the pool's 1×1 black frame stretched over the whole output by its viewport (the letterbox), and a subsurface on
/// it shows the frame, placed and sized by its own viewport. The compositor scales; nothing is drawn per mirror.
/// When the picture fills the output (same aspect ratio), the window's own surface shows it instead and the
/// subsurface nothing: the compositor then has no background to draw under it.
///
/// The subsurface is synchronized (the default): its attach and commit apply with the window's next commit, so
/// the window's frame callback and presentation feedback describe the mirror's frame.
///
/// Created in this order, destroyed in reverse by ``destroy(pool:)``: `wl_surface` → `wl_subsurface` →
/// `wp_viewport`. Needs `wl_subcompositor` and `wp_viewporter`; the window must have a viewport of its own.
public final class MirrorLayer {
    private var surface: OpaquePointer?
    private var subsurface: OpaquePointer?
    private var viewport: OpaquePointer?
    private let window: ToplevelWindow
    private let compositor: OpaquePointer?
    /// Where the picture sits on the output (logical coordinates), as last set.
    private var placed: (x: Int32, y: Int32, width: Int32, height: Int32)?
    /// What the window's own surface shows.
    private var parentShows: ParentContent?

    private enum ParentContent: Equatable {
        /// The black letterbox, stretched to the output's size; the picture is on the subsurface.
        case background(width: Int32, height: Int32)
        /// The picture itself, scaled to the output's size: it fills the output (same aspect ratio), so there is no
        /// letterbox for the compositor to draw underneath, and the subsurface shows nothing.
        case picture(width: Int32, height: Int32)
    }

    /// Nil when the compositor lacks `wl_subcompositor` or `wp_viewporter`, or the window has no viewport.
    public init?(globals: WaylandGlobals, window: ToplevelWindow) {
        guard let subcompositor = globals.subcompositor, let viewporter = globals.viewporter,
            window.viewport != nil, let parent = window.surface
        else { return nil }
        self.window = window
        compositor = globals.compositor
        surface = wl_compositor_create_surface(globals.compositor)
        subsurface = wl_subcompositor_get_subsurface(subcompositor, surface, parent)
        viewport = wp_viewporter_get_viewport(viewporter, surface)
        // Input goes to the window underneath: an empty input region makes the picture transparent to pointers.
        if let region = wl_compositor_create_region(globals.compositor) {
            wl_surface_set_input_region(surface, region)
            wl_region_destroy(region)
        }
    }

    deinit { destroy(pool: nil) }

    /// Shows `frame` at (x, y) with size `width`×`height` on an output `outputWidth`×`outputHeight` (all logical),
    /// black around it. Applies with the window's next commit, which the caller makes.
    public func show(
        _ frame: ShmFrame, x: Int32, y: Int32, width: Int32, height: Int32, outputWidth: Int32, outputHeight: Int32,
        pool: SharedFramePool
    ) {
        guard let surface, let parent = window.surface else { return }
        if x == 0 && y == 0 && width == outputWidth && height == outputHeight {
            if parentShows != .picture(width: outputWidth, height: outputHeight) {
                if case .background = parentShows {
                    // Hide the subsurface (a null buffer unmaps it); its buffers go once released.
                    wl_surface_attach(surface, nil, 0, 0)
                    wl_surface_commit(surface)
                    pool.retire(surface: surface)
                    placed = nil
                }
                setParentState(width: outputWidth, height: outputHeight)
                parentShows = .picture(width: outputWidth, height: outputHeight)
            }
            frame.attach(to: parent)
            return
        }
        if parentShows != .background(width: outputWidth, height: outputHeight) {
            let showedPicture = if case .picture = parentShows { true } else { false }
            pool.black.attach(to: parent)
            if showedPicture { pool.retireFrames(surface: parent) }
            setParentState(width: outputWidth, height: outputHeight)
            parentShows = .background(width: outputWidth, height: outputHeight)
        }
        if placed == nil || placed! != (x, y, width, height) {
            wl_subsurface_set_position(subsurface, x, y)
            wp_viewport_set_destination(viewport, width, height)
            placed = (x, y, width, height)
        }
        frame.attach(to: surface)
        wl_surface_commit(surface)
    }

    /// The window's own surface: scale 1 (a 1×1 buffer is always divisible by it), stretched to the output by its
    /// viewport, opaque.
    private func setParentState(width: Int32, height: Int32) {
        wl_surface_set_buffer_scale(window.surface, 1)
        window.setViewportDestination(width: width, height: height)
        window.setOpaque(width: width, height: height, compositor: compositor)
    }

    /// Destroys the subsurface's objects in reverse order of creation; its shared buffers are retired in `pool`
    /// first. The window's own surface keeps its viewport (its owner resets it). Safe to call twice.
    public func destroy(pool: SharedFramePool?) {
        pool?.retire(surface: surface)
        if let p = viewport { wp_viewport_destroy(p) }
        if let p = subsurface { wl_subsurface_destroy(p) }
        if let p = surface { wl_surface_destroy(p) }
        (viewport, subsurface, surface) = (nil, nil, nil)
    }
}
