import CEGL
import CGLES2
import CWaylandClient
import Logging

/// Owns the EGL display and the one GLES2 context every screen draws with.
///
/// One context for all surfaces means textures (text, later the mirrored controller UI) are shared for free;
/// each ``WindowSurface`` is made current in turn. Call ``terminate()`` after every window surface is destroyed
/// and before the `wl_display` disconnects (shared/design.md, "Teardown order").
public final class GraphicsContext {
    public private(set) var display: EGLDisplay?
    public private(set) var config: EGLConfig?
    public private(set) var context: EGLContext?
    private let logger = Logger(label: "multiscreen.egl")

    /// - Parameter waylandDisplay: the `wl_display *` of our connection.
    /// - Throws: ``RenderingError/egl(call:code:)`` naming the call that failed.
    public init(waylandDisplay: OpaquePointer?) throws {
        guard
            let display = eglGetPlatformDisplay(
                EGLenum(EGL_PLATFORM_WAYLAND_KHR), UnsafeMutableRawPointer(waylandDisplay), nil)
        else { throw RenderingError.egl(call: "eglGetPlatformDisplay", code: eglGetError()) }
        self.display = display
        var major: EGLint = 0
        var minor: EGLint = 0
        guard eglInitialize(display, &major, &minor) == EGL_TRUE else {
            throw RenderingError.egl(call: "eglInitialize", code: eglGetError())
        }
        guard eglBindAPI(EGLenum(EGL_OPENGL_ES_API)) == EGL_TRUE else {
            throw RenderingError.egl(call: "eglBindAPI", code: eglGetError())
        }
        // Opaque 8-bit RGB: no alpha channel, so the compositor never blends our fullscreen surfaces.
        let attributes: [EGLint] = [
            EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
            EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 0, EGL_NONE,
        ]
        var config: EGLConfig?
        var count: EGLint = 0
        guard eglChooseConfig(display, attributes, &config, 1, &count) == EGL_TRUE, count > 0, let config else {
            throw RenderingError.egl(call: "eglChooseConfig", code: eglGetError())
        }
        self.config = config
        let contextAttributes: [EGLint] = [EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE]
        guard let context = eglCreateContext(display, config, nil, contextAttributes) else {
            throw RenderingError.egl(call: "eglCreateContext", code: eglGetError())
        }
        self.context = context
        let vendor = eglQueryString(display, EGL_VENDOR).map { String(cString: $0) } ?? "?"
        logger.info("EGL \(major).\(minor) (\(vendor))")
    }

    deinit { terminate() }

    /// Makes `surface` current (or no surface, for resource work). Returns false on failure.
    @discardableResult
    public func makeCurrent(_ surface: EGLSurface?) -> Bool {
        eglMakeCurrent(display, surface, surface, context) == EGL_TRUE
    }

    /// Releases the current surface so it can be destroyed.
    public func releaseCurrent() {
        guard let display else { return }
        eglMakeCurrent(display, nil, nil, nil)
    }

    public var renderer: String {
        glGetString(GLenum(GL_RENDERER)).map {
            String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
        }
            ?? "?"
    }

    /// Destroys the context and terminates the EGL display. Every ``WindowSurface`` must be gone already.
    public func terminate() {
        guard let display else { return }
        eglMakeCurrent(display, nil, nil, nil)
        if let context { eglDestroyContext(display, context) }
        eglTerminate(display)
        eglReleaseThread()
        self.context = nil
        self.display = nil
    }
}
