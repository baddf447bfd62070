import CWaylandClient
import CWaylandProtocols

/// A picture over a window that fades out: what a screen showed before a playlist's crossfade, on a subsurface above
/// everything the window shows (its media layer included), drawn more transparent at each step until it is gone. The
/// compositor blends it (premultiplied ARGB8888 in `wl_shm`, which every compositor composites with its alpha), so
/// what is under it — a picture, a video, a page, a slide — shows and plays on as it is, and nothing under it is
/// drawn twice.
///
/// Owns its surface, subsurface, viewport and two frames (one the compositor may hold while the other is written):
/// made when the fade starts, destroyed by ``destroy()`` when it ends or its window goes.
public final class FadeLayer {
    private var surface: OpaquePointer?
    private var subsurface: OpaquePointer?
    private var viewport: OpaquePointer?
    private var frames: [ShmFrame]
    /// The picture, opaque XRGB8888 (`0xXXRRGGBB`), `width × height` pixels.
    private let picture: [UInt32]
    private var frameCallback: FrameCallback?

    /// Nil when the compositor lacks `wl_subcompositor`, `wp_viewporter` or `wl_shm`, the window has no surface, or
    /// the memory cannot be made.
    /// - Parameters:
    ///   - picture: the window's frame as it was, XRGB8888 bytes (B, G, R, unused), `width` × 4 bytes a row.
    ///   - logicalWidth, logicalHeight: the window's size in surface coordinates, which the picture covers.
    public init?(
        globals: WaylandGlobals, window: ToplevelWindow, picture: [UInt8], width: Int32, height: Int32,
        logicalWidth: Int32, logicalHeight: Int32
    ) {
        guard let subcompositor = globals.subcompositor, let viewporter = globals.viewporter, let shm = globals.shm,
            let parent = window.surface, picture.count >= Int(width) * Int(height) * 4,
            let frames = try? (0..<2).map({ _ in try ShmFrame(shm: shm, width: width, height: height, hasAlpha: true) })
        else { return nil }
        self.frames = frames
        self.picture = picture.withUnsafeBytes {
            Array($0.bindMemory(to: UInt32.self).prefix(Int(width) * Int(height)))
        }
        surface = wl_compositor_create_surface(globals.compositor)
        subsurface = wl_subcompositor_get_subsurface(subcompositor, surface, parent)
        viewport = wp_viewporter_get_viewport(viewporter, surface)
        wl_subsurface_set_desync(subsurface)
        wl_subsurface_set_position(subsurface, 0, 0)
        wp_viewport_set_destination(viewport, logicalWidth, logicalHeight)
        if let region = wl_compositor_create_region(globals.compositor) {
            wl_surface_set_input_region(surface, region)
            wl_region_destroy(region)
        }
    }

    deinit { destroy() }

    /// Stacks this layer above `layer` (the window's media layer, which may have come after this one: a subsurface
    /// made later is stacked higher). It applies with the window's next commit.
    public func stack(above layer: MediaLayer) {
        if let subsurface, let sibling = layer.surface { wl_subsurface_place_above(subsurface, sibling) }
    }

    /// Shows the picture at `opacity` (0 to 1) and commits.
    /// - Parameter whenShown: called at the compositor's next frame callback for this commit: the time for the next
    ///   step. While the compositor holds both frames, the step shows nothing new and waits for the next frame.
    public func show(opacity: Double, whenShown: @escaping () -> Void) {
        guard let surface else { return }
        if let frame = frames.first(where: { !$0.isHeld }) {
            let alpha = UInt32(max(0, min(1, opacity)) * 255)
            let out = frame.pixelsForWriting().bindMemory(to: UInt32.self, capacity: picture.count)
            picture.withUnsafeBufferPointer { source in
                // Premultiplied: every channel times alpha, two channels per multiply (red and blue, then green).
                for index in 0..<source.count {
                    let pixel = source[index]
                    // (Swift's `>>` binds tighter than `&*`: the products are bracketed.)
                    let redBlue = (((pixel & 0x00FF_00FF) &* alpha) >> 8) & 0x00FF_00FF
                    let green = (((pixel & 0x0000_FF00) &* alpha) >> 8) & 0x0000_FF00
                    out[index] = alpha << 24 | redBlue | green
                }
            }
            frame.attach(to: surface)
        }
        frameCallback = nil
        if let proxy = wl_surface_frame(surface) {
            frameCallback = FrameCallback(proxy: proxy) { [unowned self] _ in
                frameCallback = nil
                whenShown()
            }
        }
        wl_surface_commit(surface)
    }

    /// Destroys the subsurface's objects in reverse order of creation, then the frames (their buffers and pools: the
    /// surface that held them is gone). Safe to call twice.
    public func destroy() {
        frameCallback = nil
        if let p = viewport { wp_viewport_destroy(p) }
        if let p = subsurface { wl_subsurface_destroy(p) }
        if let p = surface { wl_surface_destroy(p) }
        (viewport, subsurface, surface) = (nil, nil, nil)
        for frame in frames { frame.destroy() }
        frames = []
    }
}
