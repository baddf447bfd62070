import CGLES2
import Glibc
import Outputs
import SystemCalls
import TextRendering

/// Draws rectangles and text in buffer pixels (origin top-left) with the programs from `shaders/`.
///
/// Text is laid out and rasterised once per distinct (string, style, box) and kept as a GL texture; a screen that
/// redraws the same labels costs no Pango work. Every text has a box (``TextBox``) and no texture side exceeds
/// `GL_MAX_TEXTURE_SIZE`. The cache is bounded, so a long-running signage wall with ever-changing messages does not
/// grow without limit: small texts share the pages of an atlas (``textAtlasPageWidth``), larger ones have a texture
/// of their own within ``textCacheBudget`` (least recently used deleted first).
///
/// Why an atlas: Mesa's llvmpipe keeps each texture's storage in a `malloc`ed block. A texture of its own per small
/// text made every new message allocate, and every eviction free, blocks of many sizes in the main heap, and the
/// holes were not all reused: the heap crept by megabytes an hour (reliability R6). The atlas's pages are allocated
/// once and refilled with `glTexSubImage2D`, so a new small text allocates no texture storage at all. Texts of more
/// than ``textAtlasItemLimit`` bytes are above glibc's mmap threshold (fixed by ``Application``), so each has its own
/// mapping, which goes back to the system whole when the texture is deleted.
public final class Canvas {
    private struct TextKey: Hashable {
        var text: String
        var style: TextStyle
        var box: TextBox
    }

    /// Where a text's pixels are.
    private enum TextStorage {
        /// In a page of the atlas, at this place.
        case atlas(ShelfPacker<TextKey>.Placement)
        /// A texture of its own: the text is too large for the atlas.
        case own(GLuint)
    }

    private struct TextTexture {
        var storage: TextStorage
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
        /// Atlas pages made (each made once and kept, ``textAtlasPageBytes`` each).
        public var atlasPages: Int
        /// `glTexImage2D` reported an error (out of memory): the text was not drawn.
        public var uploadFailures: Int
    }

    public var textCache: TextCacheStatistics {
        TextCacheStatistics(
            textures: budget.count + atlas.count, bytes: budget.bytes + atlasPages.count * Self.textAtlasPageBytes,
            peakBytes: budget.peakBytes + atlasPages.count * Self.textAtlasPageBytes,
            evicted: budget.evicted + atlas.evicted, atlasPages: atlasPages.count, uploadFailures: uploadFailures)
    }

    private let solid: ShaderProgram
    private let textProgram: ShaderProgram
    private let textureProgram: ShaderProgram
    private let webProgram: ShaderProgram
    private let rasterizer: TextRasterizer
    private var textures: [TextKey: TextTexture] = [:]
    private var budget = ByteBudgetCache<TextKey>(budget: Canvas.textCacheBudget)
    private var atlas: ShelfPacker<TextKey>
    /// The atlas's page textures, by the packer's page index.
    private var atlasPages: [GLuint] = []
    /// When a text of the atlas was last drawn (``releaseUnusedTexts()``).
    private var atlasLastUsedAt: UInt64 = 0
    private var viewportWidth: Float = 1
    private var viewportHeight: Float = 1
    private var uploadFailures = 0
    /// The last QR code drawn and its texture (one at a time: every screen shows the same code).
    private var qrTexture: (code: QRCode, texture: GLuint)?
    /// `GL_MAX_TEXTURE_SIZE` of the context the canvas was made in.
    public let maxTextureSize: Int

    /// Bytes of the textures of large texts kept (4 per pixel): 32 MiB is four full 1920×1080 screens of text.
    public static let textCacheBudget = 32 << 20
    /// The atlas: up to four pages of 2048 × 512 (4 MiB each), enough for a few hundred labels and messages at once.
    public static let textAtlasPageWidth = 2048
    public static let textAtlasPageHeight = 512
    public static let textAtlasPages = 4
    public static var textAtlasPageBytes: Int { textAtlasPageWidth * textAtlasPageHeight * 4 }
    /// A large text not drawn for this long is deleted when the next large text is made, or by
    /// ``releaseUnusedTexts()`` (nanoseconds): the mappings of texts shown once (a screen that came and went, a
    /// message long gone) go back to the system in a minute, not after the budget has slowly filled (R6's soak saw
    /// the textures of each hotplugged screen's texts pile up by 300 KiB a minute).
    public static let largeTextExpiry: UInt64 = 30_000_000_000
    /// Texts of more bytes than this get a texture of their own: twice glibc's fixed mmap threshold (128 KiB), so
    /// that Mesa's block for one (the pixels plus a little alignment) is surely mapped on its own, not in the heap.
    public static let textAtlasItemLimit = 256 << 10

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
        atlas = ShelfPacker(
            pageWidth: min(Self.textAtlasPageWidth, maxTextureSize),
            pageHeight: min(Self.textAtlasPageHeight, maxTextureSize), maxPages: Self.textAtlasPages)
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
        let texture: GLuint
        var region = TextureRegion.whole
        switch entry.storage {
        case .own(let own):
            texture = own
        case .atlas(let place):
            texture = atlasPages[place.page]
            let width = Float(atlas.pageWidth)
            let height = Float(atlas.pageHeight)
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
        for entry in textures.values {
            if case .own(let texture) = entry.storage { deleteTexture(texture) }
        }
        textures.removeAll()
        budget.removeAll()
        for page in atlasPages { deleteTexture(page) }
        atlasPages.removeAll()
        atlas.removeAll()
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
    public func releaseUnusedTexts() {
        let now = Self.now
        let cutoff = now > Self.largeTextExpiry ? now - Self.largeTextExpiry : 0
        for victim in budget.expirations(usedBefore: cutoff) {
            if case .own(let texture) = textures.removeValue(forKey: victim)?.storage { deleteTexture(texture) }
        }
        if atlasPages.count > 1 && atlasLastUsedAt < cutoff {
            textures = textures.filter { if case .atlas = $0.value.storage { false } else { true } }
            atlas.removeAll()
            for page in atlasPages { deleteTexture(page) }
            atlasPages.removeAll()
        }
    }

    /// When ``releaseUnusedTexts()`` will next have something to give back (CLOCK_MONOTONIC ns), nil while no text
    /// is held.
    public var nextTextRelease: UInt64? {
        let due = [budget.oldestUse, atlasPages.count > 1 ? atlasLastUsedAt : nil].compactMap { $0 }.min()
        return due.map { $0 + Self.largeTextExpiry }
    }

    private func texture(for key: TextKey) -> TextTexture? {
        if let entry = textures[key] {
            if case .atlas = entry.storage {
                atlas.touch(key)
                atlasLastUsedAt = Self.now
            } else {
                budget.touch(key, at: Self.now)
            }
            return entry
        }
        let bitmap = rasterizer.render(key.text, style: key.style, box: key.box, maxTextureSize: maxTextureSize)
        guard bitmap.width > 0, bitmap.height > 0 else { return nil }
        precondition(bitmap.width <= maxTextureSize && bitmap.height <= maxTextureSize)
        _ = glGetError()  // Clear an earlier error so the checks below are about this upload.
        let storage: TextStorage
        if bitmap.byteCount <= Self.textAtlasItemLimit, atlas.fits(width: bitmap.width, height: bitmap.height) {
            guard let place = placeInAtlas(key, bitmap) else { return nil }
            storage = .atlas(place)
            atlasLastUsedAt = Self.now
        } else {
            guard let texture = uploadOwnTexture(key, bitmap) else { return nil }
            storage = .own(texture)
        }
        let extent = TextExtent(
            originX: bitmap.originX, width: bitmap.width, height: bitmap.height, baseline: bitmap.baseline,
            lineCount: bitmap.lineCount, isEllipsized: bitmap.isEllipsized)
        let entry = TextTexture(storage: storage, extent: extent)
        textures[key] = entry
        return entry
    }

    /// Copies `bitmap` into a free place of the atlas (a page emptied to make room drops its texts from the cache;
    /// a page is made the first time the packer asks for it).
    private func placeInAtlas(_ key: TextKey, _ bitmap: TextBitmap) -> ShelfPacker<TextKey>.Placement? {
        let (place, victims) = atlas.place(key, width: bitmap.width, height: bitmap.height)
        for victim in victims { textures[victim] = nil }
        if place.page == atlasPages.count {
            var page: GLuint = 0
            glGenTextures(1, &page)
            glBindTexture(GLenum(GL_TEXTURE_2D), page)
            // Storage only: every text is copied in with glTexSubImage2D.
            glTexImage2D(
                GLenum(GL_TEXTURE_2D), 0, GL_RGBA, GLsizei(atlas.pageWidth), GLsizei(atlas.pageHeight), 0,
                GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), nil)
            setNearestClamped()
            atlasPages.append(page)
        }
        glBindTexture(GLenum(GL_TEXTURE_2D), atlasPages[place.page])
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 4)
        bitmap.pixels.withUnsafeBytes { bytes in
            glTexSubImage2D(
                GLenum(GL_TEXTURE_2D), 0, GLint(place.x), GLint(place.y), GLsizei(bitmap.width),
                GLsizei(bitmap.height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), bytes.baseAddress)
        }
        guard glGetError() == GLenum(GL_NO_ERROR) else {
            atlas.remove(key)
            uploadFailures += 1
            return nil
        }
        return place
    }

    /// A texture of its own for a text too large for the atlas, within the byte budget.
    private func uploadOwnTexture(_ key: TextKey, _ bitmap: TextBitmap) -> GLuint? {
        let now = Self.now
        let expired = budget.expirations(usedBefore: now > Self.largeTextExpiry ? now - Self.largeTextExpiry : 0)
        for victim in expired + budget.evictions(toFit: bitmap.byteCount) {
            if case .own(let texture) = textures.removeValue(forKey: victim)?.storage { deleteTexture(texture) }
        }
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
        setNearestClamped()
        budget.insert(key, bytes: bitmap.byteCount, at: now)
        return texture
    }

    /// CLOCK_MONOTONIC in nanoseconds, for ``largeTextExpiry``.
    private static var now: UInt64 { MonotonicClock.nanoseconds() }

    /// Text is drawn at integer positions, 1:1: nearest sampling keeps glyph edges exactly as cairo made them (and
    /// never reaches into a neighbour in the atlas).
    private func setNearestClamped() {
        for (parameter, value) in [
            (GL_TEXTURE_MIN_FILTER, GL_NEAREST), (GL_TEXTURE_MAG_FILTER, GL_NEAREST),
            (GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE), (GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE),
        ] {
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(parameter), value)
        }
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
