import CGLES2
import Outputs
import TextRendering

/// Draws rectangles and text in buffer pixels (origin top-left) with the programs from `shaders/`.
///
/// Text is rasterised once per distinct (string, size, wrap width) and kept as a GL texture; a screen that
/// redraws the same labels costs no FreeType work. The cache is bounded (least recently used textures are
/// deleted) so a long-running signage wall with ever-changing messages does not grow without limit.
public final class Canvas {
    private struct TextKey: Hashable {
        var text: String
        var pixelSize: Int
        var maxWidth: Int?
    }

    private struct TextTexture {
        var texture: GLuint
        var width: Int
        var height: Int
        var lastUsed: UInt64
    }

    private let solid: ShaderProgram
    private let textProgram: ShaderProgram
    private let textureProgram: ShaderProgram
    private let rasterizer: TextRasterizer
    private var textures: [TextKey: TextTexture] = [:]
    private var useCounter: UInt64 = 0
    private var viewportWidth: Float = 1
    private var viewportHeight: Float = 1

    public static let textCacheLimit = 256

    /// Where the next ``begin(width:height:background:)`` draws: the whole framebuffer (nil), or a region of it
    /// whose top-left corner is at (x, y) in a framebuffer `framebufferHeight` pixels high. Scenes keep drawing in
    /// their own local coordinates either way.
    public var region: (x: Int32, y: Int32, framebufferHeight: Int32)?

    /// Compiles the programs; the context must be current.
    public init(library: ShaderLibrary, rasterizer: TextRasterizer) throws {
        solid = try ShaderProgram(library: library, vertex: "quad.vert", fragment: "solid.frag")
        textProgram = try ShaderProgram(library: library, vertex: "quad.vert", fragment: "text.frag")
        textureProgram = try ShaderProgram(library: library, vertex: "quad.vert", fragment: "texture.frag")
        self.rasterizer = rasterizer
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
        solid.use()
        glUniform2f(solid.uniform("u_viewport"), viewportWidth, viewportHeight)
        let (r, g, b) = color.floats
        glUniform4f(solid.uniform("u_color"), r, g, b, alpha)
        drawQuad(x: x, y: y, width: width, height: height)
    }

    /// Draws `text` with its top-left corner at (x, y). Returns the size it covers.
    @discardableResult
    public func text(
        _ text: String, x: Float, y: Float, pixelSize: Int, color: RGBColor, maxWidth: Int? = nil
    ) -> (width: Int, height: Int) {
        guard let entry = texture(for: TextKey(text: text, pixelSize: pixelSize, maxWidth: maxWidth)) else {
            return (0, 0)
        }
        textProgram.use()
        glUniform2f(textProgram.uniform("u_viewport"), viewportWidth, viewportHeight)
        let (r, g, b) = color.floats
        glUniform4f(textProgram.uniform("u_color"), r, g, b, 1)
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), entry.texture)
        glUniform1i(textProgram.uniform("u_texture"), 0)
        drawQuad(x: x.rounded(), y: y.rounded(), width: Float(entry.width), height: Float(entry.height))
        return (entry.width, entry.height)
    }

    /// The size `text` would cover, without drawing it.
    public func measure(_ text: String, pixelSize: Int) -> (width: Int, height: Int) {
        if let entry = textures[TextKey(text: text, pixelSize: pixelSize, maxWidth: nil)] {
            return (entry.width, entry.height)
        }
        return rasterizer.measure(text, pixelSize: pixelSize)
    }

    /// Draws a ``MirrorTexture`` into `rect`. Textures copied from a framebuffer have their origin at the bottom
    /// left, so the texture coordinates are flipped vertically.
    public func drawTexture(_ target: MirrorTexture, in rect: Rect) {
        target.setFiltering(exact: Int32(rect.width) == target.width && Int32(rect.height) == target.height)
        textureProgram.use()
        glUniform2f(textureProgram.uniform("u_viewport"), viewportWidth, viewportHeight)
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), target.texture)
        glUniform1i(textureProgram.uniform("u_texture"), 0)
        drawQuad(x: rect.x, y: rect.y, width: rect.width, height: rect.height, flipped: true)
    }

    /// Deletes every GL object; the context must be current.
    public func delete() {
        for entry in textures.values { deleteTexture(entry.texture) }
        textures.removeAll()
        textureProgram.delete()
        textProgram.delete()
        solid.delete()
    }

    private func texture(for key: TextKey) -> TextTexture? {
        useCounter += 1
        if var entry = textures[key] {
            entry.lastUsed = useCounter
            textures[key] = entry
            return entry
        }
        let bitmap = rasterizer.render(key.text, pixelSize: key.pixelSize, maxWidth: key.maxWidth)
        guard bitmap.width > 0, bitmap.height > 0 else { return nil }
        if textures.count >= Self.textCacheLimit { evictOldest() }
        var texture: GLuint = 0
        glGenTextures(1, &texture)
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        bitmap.pixels.withUnsafeBytes { bytes in
            glTexImage2D(
                GLenum(GL_TEXTURE_2D), 0, GL_ALPHA, GLsizei(bitmap.width), GLsizei(bitmap.height), 0,
                GLenum(GL_ALPHA), GLenum(GL_UNSIGNED_BYTE), bytes.baseAddress)
        }
        // Text is drawn at integer positions, 1:1: nearest sampling keeps glyph edges exactly as FreeType made them.
        for (parameter, value) in [
            (GL_TEXTURE_MIN_FILTER, GL_NEAREST), (GL_TEXTURE_MAG_FILTER, GL_NEAREST),
            (GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE), (GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE),
        ] {
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(parameter), value)
        }
        let entry = TextTexture(texture: texture, width: bitmap.width, height: bitmap.height, lastUsed: useCounter)
        textures[key] = entry
        return entry
    }

    private func evictOldest() {
        // Drop the older half in one go so eviction is rare (amortised O(1) per insert).
        let sorted = textures.sorted { $0.value.lastUsed < $1.value.lastUsed }
        for (key, entry) in sorted.prefix(textures.count / 2) {
            deleteTexture(entry.texture)
            textures[key] = nil
        }
    }

    private func deleteTexture(_ texture: GLuint) {
        var t = texture
        glDeleteTextures(1, &t)
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
