import CEGL
import CGLES2
import CWaylandClient
import Logging

/// Owns the EGL display and the one GLES2 context every screen draws with.
///
/// One context for all surfaces means textures (text, later the mirrored controller UI) are shared for free;
/// each ``WindowSurface`` is made current in turn. Call ``terminate()`` after every window surface is destroyed
/// and before the `wl_display` disconnects: EGL keeps its own objects on the connection, and a surface destroyed
/// after its `wl_egl_window` or a terminate after the disconnect touches freed memory.
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
        let config = try Self.chooseConfig(display)
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

    /// A config with exactly 8 bits per channel, alpha included (ARGB8888 shm buffers).
    ///
    /// EGL treats the sizes asked for as minimums and sorts deeper configs first, so a plain
    /// `eglChooseConfig(R8 G8 B8)` returns 10-bit XRGB2101010 on Mesa: sway shows that, weston 10's pixman renderer
    /// draws it black. An alpha-less XRGB8888 config fared no better on weston 10 (the surface came out
    /// transparent). ARGB8888 with alpha kept at 1 by ``Canvas`` (and an opaque region on the surface, so the
    /// compositor need not blend) shows correctly on both.
    private static func chooseConfig(_ display: EGLDisplay) throws -> EGLConfig {
        let attributes: [EGLint] = [
            EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
            EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE,
        ]
        var count: EGLint = 0
        guard eglChooseConfig(display, attributes, nil, 0, &count) == EGL_TRUE, count > 0 else {
            throw RenderingError.egl(call: "eglChooseConfig", code: eglGetError())
        }
        var configs = [EGLConfig?](repeating: nil, count: Int(count))
        eglChooseConfig(display, attributes, &configs, count, &count)
        func size(_ config: EGLConfig, _ attribute: EGLint) -> EGLint {
            var value: EGLint = 0
            eglGetConfigAttrib(display, config, attribute, &value)
            return value
        }
        let eightBit = configs.compactMap { $0 }.filter { config in
            [EGL_RED_SIZE, EGL_GREEN_SIZE, EGL_BLUE_SIZE].allSatisfy { size(config, $0) == 8 }
        }
        guard let chosen = eightBit.first(where: { size($0, EGL_ALPHA_SIZE) == 8 }) ?? eightBit.first else {
            throw RenderingError.egl(call: "eglChooseConfig (no 8-bit RGB config)", code: eglGetError())
        }
        return chosen
    }

    /// `GL_RENDERER` and `GL_EXTENSIONS` of the context; a context must be current (empty otherwise).
    public var renderer: (name: String, extensions: String) {
        let name = glGetString(GLenum(GL_RENDERER)).map { String(cString: $0) } ?? ""
        let extensions = glGetString(GLenum(GL_EXTENSIONS)).map { String(cString: $0) } ?? ""
        return (name, extensions)
    }

    /// Whether `renderer` names one of Mesa's software rasterisers (no GPU: every pixel drawn costs CPU).
    public static func isSoftware(renderer: String) -> Bool {
        ["llvmpipe", "softpipe", "Software Rasterizer", "SwiftShader"].contains { renderer.contains($0) }
    }

    /// The EGL display's extensions (space-separated), e.g. to tell whether buffers of another process's EGL can
    /// be imported (`EGL_WL_bind_wayland_display`).
    public var extensions: String {
        guard let display, let text = eglQueryString(display, EGL_EXTENSIONS) else { return "" }
        return String(cString: text)
    }

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
