import CEGL
import CWaylandClient
import CWaylandEGL

/// Owns a `wl_egl_window` and the EGL surface on it: the buffer side of one screen's `wl_surface`.
///
/// Destroyed by ``destroy(context:)`` in the order EGL requires: release the current context,
/// `eglDestroySurface`, then `wl_egl_window_destroy` — before the `wl_surface` goes.
public final class WindowSurface {
    public private(set) var eglSurface: EGLSurface?
    private var window: OpaquePointer?
    public private(set) var width: Int32
    public private(set) var height: Int32

    /// - Throws: ``RenderingError/egl(call:code:)``.
    public init(context: GraphicsContext, surface: OpaquePointer?, width: Int32, height: Int32) throws {
        guard let window = wl_egl_window_create(surface, width, height) else {
            throw RenderingError.egl(call: "wl_egl_window_create", code: 0)
        }
        self.window = window
        self.width = width
        self.height = height
        guard
            let eglSurface = eglCreatePlatformWindowSurface(
                context.display, context.config, UnsafeMutableRawPointer(window), nil)
        else {
            let code = eglGetError()
            wl_egl_window_destroy(window)
            self.window = nil
            throw RenderingError.egl(call: "eglCreatePlatformWindowSurface", code: code)
        }
        self.eglSurface = eglSurface
        context.makeCurrent(eglSurface)
        // Never block in eglSwapBuffers waiting for a frame callback: a hidden screen gets none, and with the
        // default interval 1 it would stall every other screen drawn on this thread. We pace with our own
        // wl_surface.frame callbacks instead (like wl-mirror and foot).
        eglSwapInterval(context.display, 0)
    }

    /// Resizes the buffer; takes effect with the next swap (wayland-egl: "the new size is used … on the next
    /// eglSwapBuffers").
    public func resize(width: Int32, height: Int32) {
        guard width != self.width || height != self.height else { return }
        wl_egl_window_resize(window, width, height, 0, 0)
        self.width = width
        self.height = height
    }

    /// Posts the drawn frame: attaches the buffer and commits the `wl_surface`.
    public func swap(context: GraphicsContext) -> Bool {
        eglSwapBuffers(context.display, eglSurface) == EGL_TRUE
    }

    public func destroy(context: GraphicsContext) {
        if let eglSurface {
            context.releaseCurrent()
            eglDestroySurface(context.display, eglSurface)
        }
        if let window { wl_egl_window_destroy(window) }
        eglSurface = nil
        window = nil
    }
}
