import Logging
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
    /// The controller's last frame, for the screens that mirror it; made when the first mirror needs it.
    var mirror: MirrorTexture?
    private let logger: Logger

    init(display: WaylandDisplay, fonts: BackgroundLoad<TextRasterizer>, logger: Logger) throws {
        context = try GraphicsContext(waylandDisplay: display.pointer)
        self.fonts = fonts
        self.logger = logger
    }

    /// Compiles the shaders now, while the compositor prepares the first configures (Mesa supports
    /// EGL_KHR_surfaceless_context; elsewhere the canvas is made with the first surface instead).
    func prepare() throws {
        if context.makeCurrent(nil) { _ = try makeCanvas() }
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

    /// Deletes the GL objects and terminates EGL. Every window surface must be destroyed already.
    func destroy() {
        if context.makeCurrent(nil) {
            mirror?.delete()
            canvas?.delete()
        }
        mirror = nil
        canvas = nil
        context.terminate()
    }
}
