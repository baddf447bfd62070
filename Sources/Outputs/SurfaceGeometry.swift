/// Sizes of one fullscreen surface: what it covers on screen and how many pixels its buffer has.
public struct SurfaceGeometry: Hashable, Sendable {
    /// Size in surface-local coordinates (what `xdg_toplevel.configure` speaks in).
    public var logicalWidth: Int32
    public var logicalHeight: Int32
    /// Size of the EGL window buffer in pixels.
    public var bufferWidth: Int32
    public var bufferHeight: Int32
    /// Value for `wl_surface.set_buffer_scale`; 1 when a viewport maps a fractionally scaled buffer.
    public var bufferScale: Int32
    /// Whether `wp_viewport.set_destination(logicalWidth, logicalHeight)` must be set.
    public var usesViewport: Bool

    public init(
        logicalWidth: Int32, logicalHeight: Int32, bufferWidth: Int32, bufferHeight: Int32, bufferScale: Int32,
        usesViewport: Bool
    ) {
        self.logicalWidth = logicalWidth
        self.logicalHeight = logicalHeight
        self.bufferWidth = bufferWidth
        self.bufferHeight = bufferHeight
        self.bufferScale = bufferScale
        self.usesViewport = usesViewport
    }

    /// Resolves the geometry for a configure event.
    ///
    /// - Parameters:
    ///   - configuredWidth: from `xdg_toplevel.configure`; 0 means "client decides". sway's first configure is
    ///     0×0 for a fullscreen window, so 0 falls back to the output's logical size.
    ///   - output: the output the surface is fullscreen on.
    ///   - fractionalScale120: `wp_fractional_scale_v1.preferred_scale` (scale × 120) when both
    ///     fractional-scale and viewporter are available, else nil.
    public static func resolve(
        configuredWidth: Int32, configuredHeight: Int32, output: OutputInfo?, fractionalScale120: UInt32?
    ) -> SurfaceGeometry {
        var w = configuredWidth
        var h = configuredHeight
        if w <= 0 || h <= 0, let output {
            let size = output.logicalSize
            if w <= 0 { w = size.width }
            if h <= 0 { h = size.height }
        }
        // Nothing known yet: draw something small rather than a 0-sized buffer, which EGL rejects.
        w = max(w, 1)
        h = max(h, 1)
        if let f = fractionalScale120, f != 120 {
            // fractional-scale-v1: "the buffer size is … rounded half away from zero", destination = logical size.
            let bw = Int32((Double(w) * Double(f) / 120).rounded(.toNearestOrAwayFromZero))
            let bh = Int32((Double(h) * Double(f) / 120).rounded(.toNearestOrAwayFromZero))
            return SurfaceGeometry(
                logicalWidth: w, logicalHeight: h, bufferWidth: max(bw, 1), bufferHeight: max(bh, 1), bufferScale: 1,
                usesViewport: true)
        }
        // Integer scale: a buffer of logical × scale is always divisible by the scale, which
        // wl_surface.set_buffer_scale requires ("the buffer size must be an integer multiple of the scale").
        let s = max(output?.scale ?? 1, 1)
        return SurfaceGeometry(
            logicalWidth: w, logicalHeight: h, bufferWidth: w * s, bufferHeight: h * s, bufferScale: s,
            usesViewport: false)
    }
}
