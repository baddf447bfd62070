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

/// What the shared-frame path draws with: a pool of `wl_shm` frames and the framebuffer object a frame is drawn into
/// before it is read back into one of them. The controller's (the frames its mirrors show) is owned by ``Graphics``:
/// made once the globals are bound, ``destroy()`` after every window is gone (the GL object while the context is
/// current). An external screen that draws the frame of identical screens has a pool of its own
/// (``Screen/leaderPool``) and borrows that framebuffer object: screens are drawn one after another.
final class SharedFrames {
    let pool: SharedFramePool
    let offscreen: OffscreenFrame

    init(pool: SharedFramePool, offscreen: OffscreenFrame = OffscreenFrame()) {
        self.pool = pool
        self.offscreen = offscreen
    }

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
    /// Drawn into a shared frame and attached to its own surface (no `eglSwapBuffers`): the controller, whose frames
    /// its mirrors show, or an external screen whose frames identical screens show.
    case sharedFrame = "shared-buffer"
    /// A mirror showing the controller's shared frame, scaled by the compositor.
    case sharedMirror = "shared-buffer-mirror"
    /// An external screen showing, through its own `wl_buffer`, the frame an identical screen drew
    /// (``SharedPicture``): nothing drawn.
    case sharedIdentical = "shared-buffer-identical"

    /// Drawn with EGL into the window's own surface.
    var usesWindowSurface: Bool { self == .window || self == .mirrorByCopy }
    /// Shows frames of a ``SharedFramePool`` on the window's surface or its subsurface.
    var showsSharedFrames: Bool { !usesWindowSurface }
}
