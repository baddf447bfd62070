import CGLES2
import Glibc
import Outputs
import SystemCalls
import TextRendering

/// Draws rectangles and text in buffer pixels (origin top-left) with the programs from `shaders/`.
///
/// Text is laid out and rasterised once per distinct (string, style, box) and kept as a GL texture by
/// ``TextTextureCache``: a screen that redraws the same labels costs no Pango work. Every text has a box
/// (``TextBox``) and no texture side exceeds `GL_MAX_TEXTURE_SIZE`.
public final class Canvas {
    /// What a text covers, relative to the point it was drawn at.
    public struct TextExtent: Sendable, Equatable {
        /// Offset of the ink's box from the x it was drawn at (right-aligned or centred lines).
        public var originX: Int
        public var width: Int
        public var height: Int
        /// From the top to the first line's baseline, for lining up texts drawn side by side.
        public var baseline: Int
        public var lineCount: Int
        public var isEllipsized: Bool

        public static let zero = TextExtent(
            originX: 0, width: 0, height: 0, baseline: 0, lineCount: 0, isEllipsized: false)
    }

    public var textCache: TextCacheStatistics { textTextures.statistics }

    private let solid: ShaderProgram
    private let textProgram: ShaderProgram
    private let textureProgram: ShaderProgram
    private let webProgram: ShaderProgram
    private let rasterizer: TextRasterizer
    private let textTextures: TextTextureCache
    private var viewportWidth: Float = 1
    private var viewportHeight: Float = 1
    /// The last QR code drawn and its texture (one at a time: every screen shows the same code).
    private var qrTexture: (code: QRCode, texture: GLuint)?
    /// `GL_MAX_TEXTURE_SIZE` of the context the canvas was made in.
    public let maxTextureSize: Int

    /// Where the next ``begin(width:height:background:)`` draws: the whole framebuffer (nil), or a region of it
    /// whose top-left corner is at (x, y) in a framebuffer `framebufferHeight` pixels high. Scenes keep drawing in
    /// their own local coordinates either way.
    public var region: (x: Int32, y: Int32, framebufferHeight: Int32)?

    /// Draws the frame upside down in GL terms, so that a frame read back with `glReadPixels` (rows bottom first)
    /// lands top row first in memory, as `wl_shm` wants it (see ``OffscreenFrame``). False for window surfaces.
    public var flipsVertically = false

    /// Compiles the programs; the context must be current.
    public init(library: ShaderLibrary, rasterizer: TextRasterizer) throws {
        solid = try ShaderProgram(library: library, vertex: "quad.vert", fragment: "solid.frag")
        textProgram = try ShaderProgram(library: library, vertex: "quad.vert", fragment: "text.frag")
        textureProgram = try ShaderProgram(library: library, vertex: "quad.vert", fragment: "texture.frag")
        webProgram = try ShaderProgram(library: library, vertex: "quad.vert", fragment: "web.frag")
        self.rasterizer = rasterizer
        var size: GLint = 0
        glGetIntegerv(GLenum(GL_MAX_TEXTURE_SIZE), &size)
        // GLES2 guarantees at least 64; a context that reports nothing is treated as the minimum.
        maxTextureSize = Int(max(size, 64))
        textTextures = TextTextureCache(rasterizer: rasterizer, maxTextureSize: maxTextureSize)
    }

    /// Copies what was just drawn since ``begin(width:height:background:)`` into `target` (see ``MirrorTexture``).
    public func capture(into target: MirrorTexture) {
        let width = Int32(viewportWidth)
        let height = Int32(viewportHeight)
        if let region {
            target.capture(x: region.x, y: region.framebufferHeight - region.y - height, width: width, height: height)
        } else {
            target.capture(x: 0, y: 0, width: width, height: height)
        }
    }

    /// Starts a frame on the current surface: sets the viewport and clears to `background`.
    public func begin(width: Int32, height: Int32, background: RGBColor) {
        viewportWidth = Float(max(width, 1))
        viewportHeight = Float(max(height, 1))
        glViewport(0, 0, width, height)
        if let region {
            // Drawing into a region of a larger surface (one window spanning every output, under cage).
            glViewport(region.x, region.framebufferHeight - region.y - height, width, height)
            glScissor(region.x, region.framebufferHeight - region.y - height, width, height)
            glEnable(GLenum(GL_SCISSOR_TEST))
        } else {
            glDisable(GLenum(GL_SCISSOR_TEST))
        }
        let (r, g, b) = background.floats
        glClearColor(r, g, b, 1)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        glEnable(GLenum(GL_BLEND))
        // Blend colour, but keep the destination's alpha at 1: the surface stays opaque.
        glBlendFuncSeparate(
            GLenum(GL_SRC_ALPHA), GLenum(GL_ONE_MINUS_SRC_ALPHA), GLenum(GL_ZERO), GLenum(GL_ONE))
    }

    public func fill(x: Float, y: Float, width: Float, height: Float, color: RGBColor, alpha: Float = 1) {
        use(solid)
        let (r, g, b) = color.floats
        glUniform4f(solid.uniform("u_color"), r, g, b, alpha)
        drawQuad(x: x, y: y, width: width, height: height)
    }

    /// Draws `text` in `box` with the box's top-left corner at (x, y). Returns what it covers.
    @discardableResult
    public func text(_ text: String, x: Float, y: Float, style: TextStyle, box: TextBox) -> TextExtent {
        guard let entry = textTextures.texture(for: TextTextureCache.TextKey(text: text, style: style, box: box)) else {
            return .zero
        }
        let extent = entry.extent
        let texture: GLuint
        var region = TextureRegion.whole
        switch entry.storage {
        case .own(let own):
            texture = own
        case .atlas(let place):
            texture = textTextures.atlasPages[place.page]
            let width = Float(textTextures.atlas.pageWidth)
            let height = Float(textTextures.atlas.pageHeight)
            region = TextureRegion(
                left: Float(place.x) / width, top: Float(place.y) / height,
                right: Float(place.x + extent.width) / width, bottom: Float(place.y + extent.height) / height)
        }
        use(textProgram)
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        glUniform1i(textProgram.uniform("u_texture"), 0)
        // The texture is premultiplied (cairo's ARGB32).
        glBlendFuncSeparate(GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA), GLenum(GL_ZERO), GLenum(GL_ONE))
        drawQuad(
            x: (x + Float(extent.originX)).rounded(), y: y.rounded(), width: Float(extent.width),
            height: Float(extent.height), region: region)
        glBlendFuncSeparate(
            GLenum(GL_SRC_ALPHA), GLenum(GL_ONE_MINUS_SRC_ALPHA), GLenum(GL_ZERO), GLenum(GL_ONE))
        return extent
    }

    /// What `text` in `box` will cover when drawn (rasterised and cached now, so drawing it next costs nothing).
    public func extent(of text: String, style: TextStyle, box: TextBox) -> TextExtent {
        textTextures.texture(for: TextTextureCache.TextKey(text: text, style: style, box: box))?.extent ?? .zero
    }

    /// Draws one line of `text` (line breaks shown as spaces), ellipsised at `maxWidth`.
    @discardableResult
    public func text(
        _ text: String, x: Float, y: Float, pixelSize: Int, color: RGBColor, maxWidth: Int? = nil,
        alignment: TextStyle.Alignment = .start
    ) -> TextExtent {
        self.text(
            text, x: x, y: y, style: TextStyle(pixelSize: pixelSize, color: color.textColor, alignment: alignment),
            box: .singleLine(maxWidth: maxWidth))
    }

    /// The size one line of `text` would cover, without drawing it.
    public func measure(_ text: String, pixelSize: Int) -> (width: Int, height: Int) {
        let style = TextStyle(pixelSize: pixelSize)
        let key = TextTextureCache.TextKey(text: text, style: style, box: .singleLine(maxWidth: nil))
        if let entry = textTextures.cached(key) { return (entry.extent.width, entry.extent.height) }
        return rasterizer.measure(text, style: style, box: key.box, maxTextureSize: maxTextureSize)
    }

    /// Where the caret before character `index` of `text` (one line, `pixelSize`) goes, from the text's left.
    public func caretX(in text: String, beforeCharacter index: Int, pixelSize: Int) -> Int {
        rasterizer.caretX(
            in: text, beforeCharacter: index, style: TextStyle(pixelSize: pixelSize), maxTextureSize: maxTextureSize)
    }

    /// Draws a ``MirrorTexture`` into `rect`. Textures copied from a framebuffer have their origin at the bottom
    /// left, so the texture coordinates are flipped vertically.
    public func drawTexture(_ target: MirrorTexture, in rect: Rect) {
        target.setFiltering(exact: Int32(rect.width) == target.width && Int32(rect.height) == target.height)
        use(textureProgram)
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), target.texture)
        glUniform1i(textureProgram.uniform("u_texture"), 0)
        drawQuad(x: rect.x, y: rect.y, width: rect.width, height: rect.height, flipped: true)
    }

    /// Draws a web page's frame into `rect` (top row first, as the web process drew it).
    public func drawWebFrame(_ frame: WebFrameTexture, in rect: Rect) {
        guard frame.texture != 0 else { return }
        frame.setFiltering(exact: Int32(rect.width) == frame.width && Int32(rect.height) == frame.height)
        use(webProgram)
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), frame.texture)
        glUniform1i(webProgram.uniform("u_texture"), 0)
        drawQuad(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
    }

    /// Draws `code` with its quiet zone, its top-left corner at (x, y), `modulePixels` buffer pixels per module:
    /// a texture of one texel per module sampled with nearest filtering, so every module is a crisp square.
    public func drawQRCode(_ code: QRCode, x: Float, y: Float, modulePixels: Int) {
        let side = code.size + 2 * QRCode.quietZone
        if qrTexture?.code != code {
            let pixels = code.rgbaWithQuietZone.pixels
            if let old = qrTexture { deleteTexture(old.texture) }
            qrTexture = nil
            var texture: GLuint = 0
            glGenTextures(1, &texture)
            glBindTexture(GLenum(GL_TEXTURE_2D), texture)
            glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
            pixels.withUnsafeBytes { bytes in
                glTexImage2D(
                    GLenum(GL_TEXTURE_2D), 0, GL_RGBA, GLsizei(side), GLsizei(side), 0, GLenum(GL_RGBA),
                    GLenum(GL_UNSIGNED_BYTE), bytes.baseAddress)
            }
            for (parameter, value) in [
                (GL_TEXTURE_MIN_FILTER, GL_NEAREST), (GL_TEXTURE_MAG_FILTER, GL_NEAREST),
                (GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE), (GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE),
            ] {
                glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(parameter), value)
            }
            qrTexture = (code, texture)
        }
        guard let texture = qrTexture?.texture else { return }
        use(textureProgram)
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        glUniform1i(textureProgram.uniform("u_texture"), 0)
        let extent = Float(side * max(modulePixels, 1))
        drawQuad(x: x.rounded(), y: y.rounded(), width: extent, height: extent)
    }

    /// Deletes every GL object; the context must be current.
    public func delete() {
        if let qr = qrTexture { deleteTexture(qr.texture) }
        qrTexture = nil
        textTextures.deleteAll()
        webProgram.delete()
        textureProgram.delete()
        textProgram.delete()
        solid.delete()
    }

    /// Gives back the texts no draw has used for ``largeTextExpiry``: large texts one by one, and an atlas grown
    /// past one page whole once none of its texts was drawn for that long (made again at the next draw). One page
    /// (4 MiB, what the controller's labels and a few messages need) is kept, so the first draw after a quiet spell
    /// does not lay every label out again. Nothing else frees them when nothing draws (after `messages clear`, a
    /// screen that went away). The context must be current.
    public func releaseUnusedTexts() { textTextures.releaseUnused() }

    /// When ``releaseUnusedTexts()`` will next have something to give back (CLOCK_MONOTONIC ns), nil while no text
    /// is held.
    public var nextTextRelease: UInt64? { textTextures.nextRelease }

    private func deleteTexture(_ texture: GLuint) {
        var t = texture
        glDeleteTextures(1, &t)
    }

    /// Makes `program` current with this frame's viewport and orientation.
    private func use(_ program: ShaderProgram) {
        program.use()
        glUniform2f(program.uniform("u_viewport"), viewportWidth, viewportHeight)
        glUniform1f(program.uniform("u_flip"), flipsVertically ? -1 : 1)
    }

    /// The part of a texture a quad shows, in texture coordinates (top = the first row uploaded).
    private struct TextureRegion {
        var left: Float
        var top: Float
        var right: Float
        var bottom: Float

        static let whole = TextureRegion(left: 0, top: 0, right: 1, bottom: 1)
    }

    private func drawQuad(
        x: Float, y: Float, width: Float, height: Float, flipped: Bool = false, region: TextureRegion = .whole
    ) {
        let (left, right) = (region.left, region.right)
        let (top, bottom) = flipped ? (region.bottom, region.top) : (region.top, region.bottom)
        let vertices: [Float] = [
            x, y, left, top,
            x + width, y, right, top,
            x, y + height, left, bottom,
            x + width, y + height, right, bottom,
        ]
        vertices.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!)
            let stride = GLsizei(4 * MemoryLayout<Float>.size)
            glEnableVertexAttribArray(ShaderProgram.positionAttribute)
            glVertexAttribPointer(
                ShaderProgram.positionAttribute, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), stride, base)
            glEnableVertexAttribArray(ShaderProgram.texcoordAttribute)
            glVertexAttribPointer(
                ShaderProgram.texcoordAttribute, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), stride,
                base + 2 * MemoryLayout<Float>.size)
            glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        }
    }
}

extension RGBColor {
    /// The same colour for ``TextStyle``.
    public var textColor: TextStyle.Color {
        TextStyle.Color(red: Double(red) / 255, green: Double(green) / 255, blue: Double(blue) / 255)
    }
}
