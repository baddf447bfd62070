import CGLES2
import Outputs
import TextRendering

/// Draws rectangles and text in buffer pixels (origin top-left) with the programs from `shaders/`.
///
/// Text is laid out and rasterised once per distinct (string, style, box) and kept as a GL texture; a screen that
/// redraws the same labels costs no Pango work. Every text has a box (``TextBox``) and no texture side exceeds
/// `GL_MAX_TEXTURE_SIZE`. The cache is bounded by bytes (``textCacheBudget``, least recently used textures deleted
/// first), so a long-running signage wall with ever-changing messages does not grow without limit.
public final class Canvas {
    private struct TextKey: Hashable {
        var text: String
        var style: TextStyle
        var box: TextBox
    }

    private struct TextTexture {
        var texture: GLuint
        var extent: TextExtent
    }

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

    /// Text texture counters, for diagnostics.
    public struct TextCacheStatistics: Sendable, Equatable {
        public var textures: Int
        public var bytes: Int
        public var peakBytes: Int
        public var evicted: Int
        /// `glTexImage2D` reported an error (out of memory): the text was not drawn.
        public var uploadFailures: Int
    }

    public var textCache: TextCacheStatistics {
        TextCacheStatistics(
            textures: budget.count, bytes: budget.bytes, peakBytes: budget.peakBytes, evicted: budget.evicted,
            uploadFailures: uploadFailures)
    }

    private let solid: ShaderProgram
    private let textProgram: ShaderProgram
    private let textureProgram: ShaderProgram
    private let webProgram: ShaderProgram
    private let rasterizer: TextRasterizer
    private var textures: [TextKey: TextTexture] = [:]
    private var budget = ByteBudgetCache<TextKey>(budget: Canvas.textCacheBudget)
    private var viewportWidth: Float = 1
    private var viewportHeight: Float = 1
    private var uploadFailures = 0
    /// The last QR code drawn and its texture (one at a time: every screen shows the same code).
    private var qrTexture: (code: QRCode, texture: GLuint)?
    /// `GL_MAX_TEXTURE_SIZE` of the context the canvas was made in.
    public let maxTextureSize: Int

    /// Bytes of text textures kept (4 per pixel): 32 MiB is four full 1920×1080 screens of text.
    public static let textCacheBudget = 32 << 20

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
        guard let entry = texture(for: TextKey(text: text, style: style, box: box)) else { return .zero }
        let extent = entry.extent
        use(textProgram)
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), entry.texture)
        glUniform1i(textProgram.uniform("u_texture"), 0)
        // The texture is premultiplied (cairo's ARGB32).
        glBlendFuncSeparate(GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA), GLenum(GL_ZERO), GLenum(GL_ONE))
        drawQuad(
            x: (x + Float(extent.originX)).rounded(), y: y.rounded(), width: Float(extent.width),
            height: Float(extent.height))
        glBlendFuncSeparate(
            GLenum(GL_SRC_ALPHA), GLenum(GL_ONE_MINUS_SRC_ALPHA), GLenum(GL_ZERO), GLenum(GL_ONE))
        return extent
    }

    /// What `text` in `box` will cover when drawn (rasterised and cached now, so drawing it next costs nothing).
    public func extent(of text: String, style: TextStyle, box: TextBox) -> TextExtent {
        texture(for: TextKey(text: text, style: style, box: box))?.extent ?? .zero
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
        let key = TextKey(text: text, style: style, box: .singleLine(maxWidth: nil))
        if let entry = textures[key] { return (entry.extent.width, entry.extent.height) }
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
        for entry in textures.values { deleteTexture(entry.texture) }
        textures.removeAll()
        budget.removeAll()
        webProgram.delete()
        textureProgram.delete()
        textProgram.delete()
        solid.delete()
    }

    private func texture(for key: TextKey) -> TextTexture? {
        if let entry = textures[key] {
            budget.touch(key)
            return entry
        }
        let bitmap = rasterizer.render(key.text, style: key.style, box: key.box, maxTextureSize: maxTextureSize)
        guard bitmap.width > 0, bitmap.height > 0 else { return nil }
        precondition(bitmap.width <= maxTextureSize && bitmap.height <= maxTextureSize)
        for victim in budget.evictions(toFit: bitmap.byteCount) {
            if let entry = textures.removeValue(forKey: victim) { deleteTexture(entry.texture) }
        }
        _ = glGetError()  // Clear an earlier error so the check below is about this upload.
        var texture: GLuint = 0
        glGenTextures(1, &texture)
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 4)
        // cairo's ARGB32 is B, G, R, A in memory on little-endian machines; text.frag swizzles it back.
        bitmap.pixels.withUnsafeBytes { bytes in
            glTexImage2D(
                GLenum(GL_TEXTURE_2D), 0, GL_RGBA, GLsizei(bitmap.width), GLsizei(bitmap.height), 0,
                GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), bytes.baseAddress)
        }
        guard glGetError() == GLenum(GL_NO_ERROR) else {
            deleteTexture(texture)
            uploadFailures += 1
            return nil
        }
        // Text is drawn at integer positions, 1:1: nearest sampling keeps glyph edges exactly as cairo made them.
        for (parameter, value) in [
            (GL_TEXTURE_MIN_FILTER, GL_NEAREST), (GL_TEXTURE_MAG_FILTER, GL_NEAREST),
            (GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE), (GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE),
        ] {
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(parameter), value)
        }
        let extent = TextExtent(
            originX: bitmap.originX, width: bitmap.width, height: bitmap.height, baseline: bitmap.baseline,
            lineCount: bitmap.lineCount, isEllipsized: bitmap.isEllipsized)
        let entry = TextTexture(texture: texture, extent: extent)
        textures[key] = entry
        budget.insert(key, bytes: bitmap.byteCount)
        return entry
    }

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

    private func drawQuad(x: Float, y: Float, width: Float, height: Float, flipped: Bool = false) {
        let (top, bottom): (Float, Float) = flipped ? (1, 0) : (0, 1)
        let vertices: [Float] = [
            x, y, 0, top,
            x + width, y, 1, top,
            x, y + height, 0, bottom,
            x + width, y + height, 1, bottom,
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
