import CGLES2
import Glibc
import Outputs
import SystemCalls
import TextRendering

/// The texts a ``Canvas`` has drawn, as GL textures, by (string, style, box).
///
/// The cache is bounded, so a long-running signage wall with ever-changing messages does not grow without limit:
/// small texts share the pages of an atlas (``Canvas/textAtlasPageWidth``), larger ones have a texture of their own
/// within ``Canvas/textCacheBudget`` (least recently used deleted first).
///
/// Why an atlas: Mesa's llvmpipe keeps each texture's storage in a `malloc`ed block. A texture of its own per small
/// text made every new message allocate, and every eviction free, blocks of many sizes in the main heap, and the
/// holes were not all reused: the heap crept by megabytes an hour (reliability R6). The atlas's pages are allocated
/// once and refilled with `glTexSubImage2D`, so a new small text allocates no texture storage at all. Texts of more
/// than ``Canvas/textAtlasItemLimit`` bytes are above glibc's mmap threshold (fixed by ``Application``), so each has
/// its own mapping, which goes back to the system whole when the texture is deleted.
///
/// Owned by one canvas; its GL context must be current for every call.
final class TextTextureCache {
    struct TextKey: Hashable {
        var text: String
        var style: TextStyle
        var box: TextBox
    }

    /// Where a text's pixels are.
    enum TextStorage {
        /// In a page of the atlas, at this place.
        case atlas(ShelfPacker<TextKey>.Placement)
        /// A texture of its own: the text is too large for the atlas.
        case own(GLuint)
    }

    struct TextTexture {
        var storage: TextStorage
        var extent: Canvas.TextExtent
    }

    private let rasterizer: TextRasterizer
    private let maxTextureSize: Int
    private var textures: [TextKey: TextTexture] = [:]
    private var budget = ByteBudgetCache<TextKey>(budget: Canvas.textCacheBudget)
    private(set) var atlas: ShelfPacker<TextKey>
    /// The atlas's page textures, by the packer's page index.
    private(set) var atlasPages: [GLuint] = []
    /// When a text of the atlas was last drawn (``releaseUnused()``).
    private var atlasLastUsedAt: UInt64 = 0
    private var uploadFailures = 0

    init(rasterizer: TextRasterizer, maxTextureSize: Int) {
        self.rasterizer = rasterizer
        self.maxTextureSize = maxTextureSize
        atlas = ShelfPacker(
            pageWidth: min(Canvas.textAtlasPageWidth, maxTextureSize),
            pageHeight: min(Canvas.textAtlasPageHeight, maxTextureSize), maxPages: Canvas.textAtlasPages)
    }

    var statistics: Canvas.TextCacheStatistics {
        Canvas.TextCacheStatistics(
            textures: budget.count + atlas.count, bytes: budget.bytes + atlasPages.count * Canvas.textAtlasPageBytes,
            peakBytes: budget.peakBytes + atlasPages.count * Canvas.textAtlasPageBytes,
            evicted: budget.evicted + atlas.evicted, atlasPages: atlasPages.count, uploadFailures: uploadFailures)
    }

    /// The entry of a text already drawn or measured, without making one.
    func cached(_ key: TextKey) -> TextTexture? { textures[key] }

    /// Deletes every texture.
    func deleteAll() {
        for entry in textures.values {
            if case .own(let texture) = entry.storage { deleteTexture(texture) }
        }
        textures.removeAll()
        budget.removeAll()
        for page in atlasPages { deleteTexture(page) }
        atlasPages.removeAll()
        atlas.removeAll()
    }

    /// See ``Canvas/releaseUnusedTexts()``.
    func releaseUnused() {
        let now = Self.now
        let cutoff = now > Canvas.largeTextExpiry ? now - Canvas.largeTextExpiry : 0
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

    /// See ``Canvas/nextTextRelease``.
    var nextRelease: UInt64? {
        let due = [budget.oldestUse, atlasPages.count > 1 ? atlasLastUsedAt : nil].compactMap { $0 }.min()
        return due.map { $0 + Canvas.largeTextExpiry }
    }

    func texture(for key: TextKey) -> TextTexture? {
        if let entry = textures[key] {
            if case .atlas = entry.storage {
                atlas.touch(key)
                atlasLastUsedAt = Self.now
            } else {
                budget.touch(key, at: Self.now)
            }
            return entry
        }
        let entry = rasterizer.withRaster(key.text, style: key.style, box: key.box, maxTextureSize: maxTextureSize) {
            raster in raster.flatMap { upload(key, $0) }
        }
        textures[key] = entry
        return entry
    }

    /// Copies the text `key` drew into a texture: a place in the atlas, or one of its own.
    private func upload(_ key: TextKey, _ raster: TextRaster) -> TextTexture? {
        precondition(raster.width <= maxTextureSize && raster.height <= maxTextureSize)
        _ = glGetError()  // Clear an earlier error so the checks below are about this upload.
        let storage: TextStorage
        if raster.byteCount <= Canvas.textAtlasItemLimit, atlas.fits(width: raster.width, height: raster.height) {
            guard let place = placeInAtlas(key, raster) else { return nil }
            storage = .atlas(place)
            atlasLastUsedAt = Self.now
        } else {
            guard let texture = uploadOwnTexture(key, raster) else { return nil }
            storage = .own(texture)
        }
        let extent = Canvas.TextExtent(
            originX: raster.originX, width: raster.width, height: raster.height, baseline: raster.baseline,
            lineCount: raster.lineCount, isEllipsized: raster.isEllipsized)
        return TextTexture(storage: storage, extent: extent)
    }

    /// Copies `raster` into a free place of the atlas (a page emptied to make room drops its texts from the cache;
    /// a page is made the first time the packer asks for it).
    private func placeInAtlas(_ key: TextKey, _ raster: TextRaster) -> ShelfPacker<TextKey>.Placement? {
        let (place, victims) = atlas.place(key, width: raster.width, height: raster.height)
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
        glTexSubImage2D(
            GLenum(GL_TEXTURE_2D), 0, GLint(place.x), GLint(place.y), GLsizei(raster.width), GLsizei(raster.height),
            GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), raster.pixels.baseAddress)
        guard glGetError() == GLenum(GL_NO_ERROR) else {
            atlas.remove(key)
            uploadFailures += 1
            return nil
        }
        return place
    }

    /// A texture of its own for a text too large for the atlas, within the byte budget.
    private func uploadOwnTexture(_ key: TextKey, _ raster: TextRaster) -> GLuint? {
        let now = Self.now
        let expired = budget.expirations(usedBefore: now > Canvas.largeTextExpiry ? now - Canvas.largeTextExpiry : 0)
        for victim in expired + budget.evictions(toFit: raster.byteCount) {
            if case .own(let texture) = textures.removeValue(forKey: victim)?.storage { deleteTexture(texture) }
        }
        var texture: GLuint = 0
        glGenTextures(1, &texture)
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 4)
        // cairo's ARGB32 is B, G, R, A in memory on little-endian machines; text.frag swizzles it back.
        glTexImage2D(
            GLenum(GL_TEXTURE_2D), 0, GL_RGBA, GLsizei(raster.width), GLsizei(raster.height), 0, GLenum(GL_RGBA),
            GLenum(GL_UNSIGNED_BYTE), raster.pixels.baseAddress)
        guard glGetError() == GLenum(GL_NO_ERROR) else {
            deleteTexture(texture)
            uploadFailures += 1
            return nil
        }
        setNearestClamped()
        budget.insert(key, bytes: raster.byteCount, at: now)
        return texture
    }

    /// CLOCK_MONOTONIC in nanoseconds, for ``Canvas/largeTextExpiry``.
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
}

extension Canvas {
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
}
