import Logging
import Messaging
import Product
import Rendering
import TextRendering
import Wayland

/// The drawing machinery every screen shares: the EGL context, the text rasteriser, the canvas with its compiled
/// shaders, and the texture mirrors sample. Created once the outputs are described; ``destroy()`` after every
/// window surface is gone (``ScreenSet/tearDownAll(context:)``) and before the Wayland connection closes.
final class Graphics {
    let context: GraphicsContext
    /// Loading while the compositor is asked for its globals and outputs (fontconfig's first scan takes ~50 ms).
    private let fonts: BackgroundLoad<TextRasterizer>
    private var canvas: Canvas?
    /// Where `screen.capture` draws a screen again to read it back (made at the first capture).
    private var captureFrame: OffscreenFrame?
    /// The phone remote's QR code, encoded once per link rather than once per frame (libqrencode takes about a
    /// millisecond for a link, on the display thread, in every frame of a screen showing it).
    let qrCodes = QRCodeCache()
    /// The controller's last frame, for the screens that mirror it; made when the first mirror needs it.
    var mirror: MirrorTexture?
    /// How mirrors get the controller's picture (``chooseMirrorPath(preference:globals:flash:)``); until then, the
    /// texture copy.
    private(set) var mirrorPath = MirrorPath.textureCopy(reason: "not chosen yet")
    /// Armed for when the canvas next has unused texts to give back: nothing else frees them once nothing draws.
    private let textReleaseTimer: OneShotTimer
    private let logger: Logger

    init(display: WaylandDisplay, loop: EventLoop, fonts: BackgroundLoad<TextRasterizer>, logger: Logger) throws {
        textReleaseTimer = try OneShotTimer(on: loop)
        context = try GraphicsContext(waylandDisplay: display.pointer)
        self.fonts = fonts
        self.logger = logger
        textReleaseTimer.fired = { [unowned self] in releaseUnusedTexts() }
    }

    /// Compiles the shaders now, while the compositor prepares the first configures (Mesa supports
    /// EGL_KHR_surfaceless_context; elsewhere the canvas is made with the first surface instead).
    /// - Parameter startup: marks the wait for the font loader and the shaders' compilation as phases of their own.
    func prepare(marking startup: inout StartupPhases?) throws {
        guard context.makeCurrent(nil) else { return }
        _ = try fonts.value()
        startup?.mark("fonts")
        _ = try makeCanvas()
        startup?.mark("shaders")
    }

    /// Chooses how mirrors get the controller's picture, once the globals are bound; logs the choice.
    func chooseMirrorPath(preference: MirrorPath.Preference, globals: WaylandGlobals, flash: Bool) {
        let renderer = context.makeCurrent(nil) ? context.renderer : (name: "", extensions: "")
        mirrorPath = MirrorPath.choose(preference: preference, globals: globals, renderer: renderer, flash: flash)
        switch mirrorPath {
        case .sharedFrames:
            logger.info(
                "mirror path: shared-buffer (GL renderer \(renderer.name)): the controller is drawn once into shared wl_shm frames; each mirror shows the same frame, scaled by the compositor (wp_viewporter)"
            )
        case .textureCopy(let reason):
            logger.info("mirror path: texture-copy (\(reason)): each mirror draws the controller's frame itself")
        }
    }

    /// The shared frames, when the mirror path has them.
    var sharedFrames: SharedFrames? {
        if case .sharedFrames(let frames) = mirrorPath { frames } else { nil }
    }

    /// The mirror path and the shared frames' counters, for `status`.
    func addMirrorVitals(to vitals: inout Vitals) {
        vitals.mirrorPath = mirrorPath.name
        if case .textureCopy(let reason) = mirrorPath { vitals.mirrorPathReason = reason }
        guard let pool = sharedFrames?.pool else { return }
        let s = pool.statistics
        vitals.sharedFrames = [
            "frames": s.frames, "held": s.held, "buffers": s.buffers, "bytes": s.bytes, "peakFrames": s.peakFrames,
            "framesWritten": s.framesWritten, "waitedForRelease": s.waitedForRelease,
        ]
    }

    /// The text texture cache's counters, for `status` (none before the canvas exists).
    var textCacheCounters: [String: Int] {
        guard let cache = canvas?.textCache else { return [:] }
        return [
            "textCacheBytes": cache.bytes, "textCacheTextures": cache.textures, "textCacheEvicted": cache.evicted,
            "textAtlasPages": cache.atlasPages,
        ]
    }

    /// The canvas needs a current context to compile its programs, so without a surfaceless context it is made
    /// with the first surface.
    func makeCanvas() throws -> Canvas {
        if let canvas { return canvas }
        let library = try ShaderLibrary()
        logger.debug("shaders from \(library.directory)")
        let made = try Canvas(library: library, rasterizer: try fonts.value())
        canvas = made
        return made
    }

    /// Arms ``textReleaseTimer`` for the canvas's next unused texts, or disarms it while none are held (an idle
    /// Multiscreen that has given its texts back makes no wakeups). After every render pass.
    func scheduleTextRelease() {
        guard let due = canvas?.nextTextRelease else { return textReleaseTimer.disarm() }
        let now = MonotonicClock.nanoseconds()
        textReleaseTimer.arm(for: due, after: due > now ? Double(due - now) / 1e9 : 0)
    }

    /// The timer fired: the texts no draw used for a while are given back (the context made current without a
    /// surface).
    private func releaseUnusedTexts() {
        guard let canvas, context.makeCurrent(nil) else { return }
        canvas.releaseUnusedTexts()
        scheduleTextRelease()
    }

    /// Draws a `width`×`height` frame with `draw` into a framebuffer of its own and reads it back: `width` × 4 bytes a
    /// row (XRGB8888, `wl_shm`'s byte order), top row first. Nil when the context or the framebuffer cannot be had.
    func renderOffscreen(width: Int32, height: Int32, draw: (Canvas) -> Void) throws -> [UInt8]? {
        guard context.makeCurrent(nil) else { return nil }
        let canvas = try makeCanvas()
        let frame = captureFrame ?? OffscreenFrame()
        captureFrame = frame
        defer { frame.unbind() }
        guard frame.bind(width: width, height: height) else { return nil }
        canvas.flipsVertically = true
        defer { canvas.flipsVertically = false }
        draw(canvas)
        var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 4)
        pixels.withUnsafeMutableBytes { frame.read(into: $0.baseAddress!) }
        return pixels
    }

    /// Deletes the GL objects and terminates EGL. Every window surface must be destroyed already.
    func destroy() {
        let current = context.makeCurrent(nil)
        if current {
            captureFrame?.delete()
            mirror?.delete()
            canvas?.delete()
        }
        sharedFrames?.destroy(glCurrent: current)
        mirrorPath = .textureCopy(reason: "destroyed")
        mirror = nil
        canvas = nil
        context.terminate()
    }
}
