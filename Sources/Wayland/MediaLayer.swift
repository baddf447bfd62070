import CWaylandClient
import CWaylandProtocols
import Outputs

/// How a screen shows an image or a video through the compositor: a subsurface above the window's own surface shows
/// the decoded picture's ``ShmFrame`` as it is, through a `wl_buffer` over the part of it shown (the crop of `cover`
/// and `center`), scaled to its viewport's destination and turned by its buffer transform (``MediaPlacement``). Nothing is drawn per frame: the compositor samples the picture once, where it
/// composites anyway. The window's own surface shows the background around it (its owner draws that).
///
/// The subsurface is desynchronized, so a video's frames are committed on their own, without a frame of the window
/// under them. It takes no input (an empty input region): a press goes to the window.
///
/// Created in this order, destroyed in reverse by ``destroy()``: `wl_surface` → `wl_subsurface` → `wp_viewport`.
/// Needs `wl_subcompositor` and `wp_viewporter`.
public final class MediaLayer {
    /// Its `wl_surface` (a ``FadeLayer`` stacks itself above it).
    private(set) var surface: OpaquePointer?
    private var subsurface: OpaquePointer?
    private var viewport: OpaquePointer?
    /// What was last set, so that a new frame of the same video costs an attach and a commit only.
    private var placed: (placement: MediaPlacement, rotation: MediaRotation, width: Int32, height: Int32)?
    /// The frame shown now.
    public private(set) var shown: ShmFrame?
    /// The frame callback of the newest commit, when its showing was asked to be told.
    private var frameCallback: FrameCallback?

    /// Nil when the compositor lacks `wl_subcompositor` or `wp_viewporter`, or the window has no surface.
    public init?(globals: WaylandGlobals, window: ToplevelWindow) {
        guard let subcompositor = globals.subcompositor, let viewporter = globals.viewporter,
            let parent = window.surface
        else { return nil }
        surface = wl_compositor_create_surface(globals.compositor)
        subsurface = wl_subcompositor_get_subsurface(subcompositor, surface, parent)
        viewport = wp_viewporter_get_viewport(viewporter, surface)
        wl_subsurface_set_desync(subsurface)
        if let region = wl_compositor_create_region(globals.compositor) {
            wl_surface_set_input_region(surface, region)
            wl_region_destroy(region)
        }
    }

    deinit { destroy() }

    /// The surface the frames are attached to (to count its buffers, to identify it in a trace).
    public var surfaceID: SurfaceID? { SurfaceID(surface) }

    /// Shows `frame` placed by `placement` (computed for the frame's size turned by `rotation`) and commits it. A frame
    /// already shown is not attached again. The frame shown before stays alive while the compositor holds it: its
    /// owner retires this surface from it when it is no longer shown anywhere.
    /// - Parameter whenShown: Called when the compositor has shown this commit (its frame callback; the newest commit's
    ///   only: a frame replaced before it was shown is never told).
    /// - Returns: whether the window's own surface must commit for this to show: a new subsurface joins its parent, and
    ///   a subsurface moves, with the parent's next commit (wayland.xml, `wl_subsurface`), desynchronized or not.
    @discardableResult
    public func show(
        _ frame: ShmFrame, placement: MediaPlacement, rotation: MediaRotation, whenShown: (() -> Void)? = nil
    ) -> Bool {
        guard let surface else { return false }
        if shown === frame, let placed, placed.placement == placement, placed.rotation == rotation { return false }
        var parentMustCommit = false
        if placed == nil || placed!.placement != placement || placed!.rotation != rotation
            || placed!.width != frame.width || placed!.height != frame.height
        {
            wl_surface_set_buffer_transform(surface, Self.transform(rotation))
            let destination = placement.destination
            wp_viewport_set_destination(viewport, Int32(destination.width), Int32(destination.height))
            if placed?.placement.destination.x != destination.x || placed?.placement.destination.y != destination.y {
                wl_subsurface_set_position(subsurface, Int32(destination.x), Int32(destination.y))
                parentMustCommit = true
            }
            placed = (placement, rotation, frame.width, frame.height)
        }
        // A desynchronized subsurface's position applies with the parent's next commit; its buffer, viewport and
        // transform with its own.
        let crop = placement.bufferCrop(width: frame.width, height: frame.height, rotation: rotation)
        frame.attach(to: surface, crop: PixelCrop(x: crop.x, y: crop.y, width: crop.width, height: crop.height))
        frameCallback = nil
        if let whenShown, let proxy = wl_surface_frame(surface) {
            frameCallback = FrameCallback(proxy: proxy) { [unowned self] _ in
                frameCallback = nil
                whenShown()
            }
        }
        wl_surface_commit(surface)
        shown = frame
        return parentMustCommit
    }

    /// Shows nothing (a null buffer unmaps the subsurface): the window's own surface shows through.
    public func hide() {
        guard let surface, shown != nil else { return }
        frameCallback = nil
        wl_surface_attach(surface, nil, 0, 0)
        wl_surface_commit(surface)
        if let id = SurfaceID(surface) { shown?.retire(id) }
        shown = nil
        placed = nil
    }

    /// `wl_output.transform` for a clockwise turn of the picture. The buffer transform says how the client already
    /// turned the buffer's content, which the compositor undoes: a buffer declared turned 90° counter-clockwise
    /// (`WL_OUTPUT_TRANSFORM_90`) is shown turned 90° clockwise.
    static func transform(_ rotation: MediaRotation) -> Int32 {
        switch rotation {
        case .none: Int32(WL_OUTPUT_TRANSFORM_NORMAL.rawValue)
        case .quarter: Int32(WL_OUTPUT_TRANSFORM_90.rawValue)
        case .half: Int32(WL_OUTPUT_TRANSFORM_180.rawValue)
        case .threeQuarters: Int32(WL_OUTPUT_TRANSFORM_270.rawValue)
        }
    }

    /// Destroys the subsurface's objects in reverse order of creation; the frame it showed lets go of its buffer for
    /// this surface (at once, or on its release). Safe to call twice.
    public func destroy() {
        frameCallback = nil
        if let id = SurfaceID(surface) { shown?.retire(id) }
        shown = nil
        if let p = viewport { wp_viewport_destroy(p) }
        if let p = subsurface { wl_subsurface_destroy(p) }
        if let p = surface { wl_surface_destroy(p) }
        (viewport, subsurface, surface) = (nil, nil, nil)
    }
}
