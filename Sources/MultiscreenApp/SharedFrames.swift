import Logging
import Rendering
import Wayland

/// How mirrors get the controller's picture, decided once per run from the renderer and the compositor's globals.
enum MirrorPath {
    /// The controller is drawn once into frames of memory Multiscreen owns; its own surface and every mirror's show
    /// the same frame, each through its own `wl_buffer`, and the compositor scales it to each mirror (see
    /// ``SharedFrames``). No mirror draws anything.
    case sharedFrames(SharedFrames)
    /// The controller's frame is copied into a texture that every mirror draws at its own size (``MirrorTexture``):
    /// any renderer, any compositor, at the cost of a full frame drawn and swapped per mirror.
    case textureCopy(reason: String)

    /// Which path, as `status` and the log name it.
    var name: String {
        switch self {
        case .sharedFrames: "shared-buffer"
        case .textureCopy: "texture-copy"
        }
    }

    /// What `multiscreen run --mirror` asks for.
    typealias Preference = MirrorPreferenceName

    /// The path for this run. Shared frames need `wl_shm`, `wl_subcompositor`, `wp_viewporter` and BGRA read-back
    /// in GL; the photodiode patch is drawn per screen, so `--flash` keeps the texture copy.
    static func choose(
        preference: Preference, globals: WaylandGlobals, renderer: (name: String, extensions: String),
        flash: Bool
    ) -> MirrorPath {
        if preference == .copy { return .textureCopy(reason: "--mirror copy") }
        if flash { return .textureCopy(reason: "--flash draws a patch on every screen") }
        guard globals.viewporter != nil else { return .textureCopy(reason: "the compositor offers no wp_viewporter") }
        guard globals.subcompositor != nil else {
            return .textureCopy(reason: "the compositor offers no wl_subcompositor")
        }
        guard let shm = globals.shm else { return .textureCopy(reason: "the compositor offers no wl_shm") }
        guard OffscreenFrame.isSupported(extensions: renderer.extensions) else {
            return .textureCopy(reason: "GL renderer \(renderer.name) cannot read back BGRA")
        }
        if preference == .auto && !GraphicsContext.isSoftware(renderer: renderer.name) {
            return .textureCopy(reason: "GPU renderer \(renderer.name): a textured quad per mirror is cheap there")
        }
        do {
            return .sharedFrames(SharedFrames(pool: try SharedFramePool(shm: shm)))
        } catch {
            return .textureCopy(reason: "no shared memory: \(error)")
        }
    }
}

/// What the shared-frame path owns: the pool of `wl_shm` frames and the framebuffer object the controller is drawn
/// into before it is read back into one of them. Owned by ``Graphics``: made once the globals are bound,
/// ``destroy()`` after every window is gone (the GL object while the context is current).
final class SharedFrames {
    let pool: SharedFramePool
    let offscreen = OffscreenFrame()

    init(pool: SharedFramePool) { self.pool = pool }

    func destroy(glCurrent: Bool) {
        if glCurrent { offscreen.delete() }
        pool.destroy()
    }
}

/// How one screen's frame reaches its surface in a render pass. Chosen per pass by the window arrangement from what
/// the screen shows and the run's ``MirrorPath``.
enum FrameRoute: String, Equatable {
    /// Drawn with EGL into the window's own swap chain (`eglSwapBuffers` attaches and commits).
    case window = "egl"
    /// A mirror drawn with EGL from the controller's texture copy.
    case mirrorByCopy = "egl-texture-copy"
    /// The controller, drawn into a shared frame and attached to its own surface (no `eglSwapBuffers`).
    case sharedFrame = "shared-buffer"
    /// A mirror showing the controller's shared frame, scaled by the compositor.
    case sharedMirror = "shared-buffer-mirror"

    /// Drawn with EGL into the window's own surface.
    var usesWindowSurface: Bool { self == .window || self == .mirrorByCopy }
}
