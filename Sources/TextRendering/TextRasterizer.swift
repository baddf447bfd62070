import CFreeType
import CHarfBuzz

/// Turns strings into coverage bitmaps: fontconfig picks a font per character, HarfBuzz shapes each run of
/// characters one font covers, FreeType rasterises the glyphs.
///
/// Font fallback: fontconfig's sorted list for the family (`FcFontSort`) is searched for the first font whose
/// charset covers each grapheme cluster, so Latin, Hangul, kana and kanji, Arabic and (if a colour emoji font is
/// installed) emoji all render; characters no font covers come out as the primary font's `.notdef` box.
/// Whitespace stays in the current run's font when that font has it, so "Hello 안녕" breaks runs only once, but
/// never goes to a colour (emoji) font, whose space is as wide as an emoji.
///
/// Long lines wrap at spaces when `maxWidth` is given (never ellipsised); a word wider than `maxWidth` breaks
/// between characters, which also wraps text written without spaces (Japanese, Chinese).
///
/// Lines are laid out left to right, each starting at x = 0; right-to-left runs are shaped with HarfBuzz's guessed
/// direction and come out in visual order, but there is no bidirectional reordering between runs.
///
/// Not thread-safe: it caches faces and glyphs without locks, and is meant to live on the display thread.
/// Create one per thread if several need text.
public final class TextRasterizer {
    /// Counters for tests and diagnostics.
    public struct Statistics: Sendable, Equatable {
        /// Faces opened with FreeType (one per file, face index and pixel size).
        public var facesLoaded = 0
        /// Glyphs loaded and rendered by FreeType (glyph cache misses).
        public var glyphsRasterized = 0
        /// Glyphs taken from the glyph cache.
        public var glyphCacheHits = 0
        /// Colour (BGRA) glyphs, such as emoji strikes, reduced to their alpha channel.
        public var colorGlyphsConverted = 0
        /// Glyphs drawn as blank because FreeType failed or produced a pixel mode we do not convert.
        public var glyphsSkipped = 0
    }

    /// A shaped run together with the face that shaped it, for rasterising.
    private struct Run {
        let face: LoadedFace
        let shaped: ShapedRun
    }

    private struct GlyphKey: Hashable {
        let face: Int
        let glyph: UInt32
    }

    /// A glyph image placed in the output bitmap's coordinates (before the final shift by the ink bounds).
    private struct Placement {
        let image: GlyphImage
        let x: Int
        let y: Int
    }

    private struct Layout {
        var placements: [Placement] = []
        var width = 0
        var height = 0
        var baseline = 0
    }

    /// When the glyph cache reaches this many entries it is emptied: a crude bound that is enough for UI text.
    private static let glyphCacheLimit = 4096

    public let family: String
    public private(set) var statistics = Statistics()

    // Owners, released in reverse order in deinit: glyph images, hb buffer, faces (each holding the FreeType
    // library), the FreeType library, then the fontconfig catalog.
    private let catalog: FontCatalog
    private let library: FreeTypeLibrary
    private let buffer: OpaquePointer
    private var faces: [FaceKey: LoadedFace] = [:]
    private var failedFaces: Set<FaceKey> = []
    private var glyphs: [GlyphKey: GlyphImage] = [:]

    /// Loads the fontconfig configuration and the fallback list for `family` (any fontconfig pattern, e.g.
    /// "sans-serif", "monospace", "DejaVu Sans:bold"), and opens the primary font to make sure it is usable.
    public init(family: String = "sans-serif") throws {
        self.family = family
        catalog = try FontCatalog(family: family)
        library = try FreeTypeLibrary()
        guard let buffer = hb_buffer_create(), hb_buffer_allocation_successful(buffer) != 0 else {
            throw TextRenderingError.harfBuzzAllocationFailed
        }
        self.buffer = buffer
        let primary = catalog.candidates[0]
        do {
            _ = try loadFace(FaceKey(file: primary.file, index: primary.index, pixelSize: 16))
        } catch {
            hb_buffer_destroy(buffer)
            throw error
        }
    }

    deinit {
        glyphs.removeAll()
        hb_buffer_destroy(buffer)
        // Each face holds the library, so FT_Done_FreeType (when `library` goes) follows the last FT_Done_Face.
        faces.removeAll()
    }

    /// The fonts fontconfig offers for ``family``, best match first: the order fallback searches them in.
    public var fallbackFamilies: [String] {
        catalog.candidates.map(\.family)
    }

    /// Shapes `text` without wrapping; "\n" separates lines. Glyph clusters and run ranges are offsets in
    /// `text.unicodeScalars`.
    public func shape(_ text: String, pixelSize: Int) -> [ShapedRun] {
        guard pixelSize > 0 else { return [] }
        return Paragraph.split(text).flatMap { shape($0, pixelSize: pixelSize).map(\.shaped) }
    }

    /// Shapes and rasterises `text` (may contain "\n" for several lines) at `pixelSize` (the em height in pixels).
    ///
    /// With `maxWidth`, lines wrap at spaces (never ellipsised) and the bitmap is at most `maxWidth` wide; ink that
    /// overhangs it (an italic's tail) is clipped. Empty text, or text drawing nothing at all, gives a 0×0 bitmap.
    public func render(_ text: String, pixelSize: Int, maxWidth: Int? = nil) -> TextBitmap {
        let layout = layOut(text, pixelSize: pixelSize, maxWidth: maxWidth)
        guard layout.width > 0, layout.height > 0 else { return .empty }
        let width = layout.width
        var pixels = [UInt8](repeating: 0, count: width * layout.height)
        for placement in layout.placements {
            let image = placement.image
            for row in 0..<image.height {
                let y = placement.y + row
                guard y >= 0, y < layout.height else { continue }
                for column in 0..<image.width {
                    let x = placement.x + column
                    guard x >= 0, x < width else { continue }
                    let value = image.pixels[row * image.width + column]
                    if value == 0 { continue }
                    // Saturating add rather than max, so that touching glyphs (joined scripts) show no seam.
                    let sum = Int(pixels[y * width + x]) + Int(value)
                    pixels[y * width + x] = UInt8(min(sum, 255))
                }
            }
        }
        return TextBitmap(width: width, height: layout.height, baseline: layout.baseline, pixels: pixels)
    }

    /// The size ``render(_:pixelSize:maxWidth:)`` would return, without filling a bitmap.
    public func measure(_ text: String, pixelSize: Int, maxWidth: Int? = nil) -> (width: Int, height: Int) {
        let layout = layOut(text, pixelSize: pixelSize, maxWidth: maxWidth)
        guard layout.width > 0, layout.height > 0 else { return (0, 0) }
        return (layout.width, layout.height)
    }

    // MARK: - Layout

    private func layOut(_ text: String, pixelSize: Int, maxWidth: Int?) -> Layout {
        guard pixelSize > 0, !text.isEmpty else { return Layout() }
        var placements: [Placement] = []
        var minX = 0
        var maxX = 0
        var minY = 0
        var maxY = 0
        var lineTop = 0
        var firstBaseline: Int?
        for paragraph in Paragraph.split(text) {
            let runs = shape(paragraph, pixelSize: pixelSize)
            let lines: [Range<Int>]
            if let maxWidth {
                lines = Paragraph.wrap(
                    characters: paragraph.characters, advances: characterAdvances(paragraph, runs),
                    maxWidth: maxWidth * 64)
            } else {
                lines = [0..<paragraph.characters.count]
            }
            for line in lines {
                let first = paragraph.textOffset + paragraph.characterStarts[line.lowerBound]
                let last = paragraph.textOffset + paragraph.characterStarts[line.upperBound]
                let scalarRange = first..<last
                let used = runs.filter { $0.shaped.scalarRange.overlaps(scalarRange) }.map(\.face)
                let metricsFaces = used.isEmpty ? primaryFace(pixelSize: pixelSize).map { [$0] } ?? [] : used
                let ascent = metricsFaces.map(\.ascent).max() ?? pixelSize
                let descent = metricsFaces.map(\.descent).max() ?? 0
                let height = max(metricsFaces.map(\.lineHeight).max() ?? pixelSize, ascent + descent)
                let baseline = lineTop + ascent
                if firstBaseline == nil { firstBaseline = baseline }

                var pen = 0  // 26.6
                for run in runs {
                    for glyph in run.shaped.glyphs where scalarRange.contains(glyph.cluster) {
                        let image = glyphImage(glyph.id, face: run.face)
                        if image.width > 0 {
                            let x = Int((Double(pen + Int(glyph.xOffset)) / 64).rounded()) + image.left
                            let y = baseline - Int((Double(glyph.yOffset) / 64).rounded()) - image.top
                            placements.append(Placement(image: image, x: x, y: y))
                            minX = min(minX, x)
                            maxX = max(maxX, x + image.width)
                            minY = min(minY, y)
                            maxY = max(maxY, y + image.height)
                        }
                        pen += Int(glyph.xAdvance)
                    }
                }
                maxX = max(maxX, (pen + 63) >> 6)
                lineTop += height
            }
        }
        var width = maxX - minX
        if let maxWidth { width = min(width, max(maxWidth, 0)) }
        let shifted = placements.map { Placement(image: $0.image, x: $0.x - minX, y: $0.y - minY) }
        return Layout(
            placements: shifted, width: width, height: max(lineTop, maxY) - minY, baseline: (firstBaseline ?? 0) - minY)
    }

    /// Width of each character of `paragraph` in 26.6 units: the advances of the glyphs whose cluster starts in
    /// it (a ligature's whole advance goes to its first character).
    private func characterAdvances(_ paragraph: Paragraph, _ runs: [Run]) -> [Int] {
        var characterOfScalar = [Int](repeating: 0, count: paragraph.scalars.count)
        for index in paragraph.characters.indices {
            for scalar in paragraph.characterStarts[index]..<paragraph.characterStarts[index + 1] {
                characterOfScalar[scalar] = index
            }
        }
        var advances = [Int](repeating: 0, count: paragraph.characters.count)
        for run in runs {
            for glyph in run.shaped.glyphs {
                advances[characterOfScalar[glyph.cluster - paragraph.textOffset]] += Int(glyph.xAdvance)
            }
        }
        return advances
    }

    // MARK: - Shaping

    /// Splits the paragraph into runs of characters that one font covers, and shapes each with HarfBuzz.
    private func shape(_ paragraph: Paragraph, pixelSize: Int) -> [Run] {
        var items: [(font: Int, characters: Range<Int>)] = []
        for (index, character) in paragraph.characters.enumerated() {
            if let current = items.last {
                let stays = character.isWhitespace && catalog.font(current.font, canShow: character)
                let font = stays ? current.font : catalog.fontIndex(for: character)
                if font == current.font {
                    items[items.count - 1].characters = current.characters.lowerBound..<(index + 1)
                    continue
                }
                items.append((font, index..<(index + 1)))
            } else {
                items.append((catalog.fontIndex(for: character), index..<(index + 1)))
            }
        }
        let starts = paragraph.characterStarts
        return items.compactMap { item in
            let scalars = starts[item.characters.lowerBound]..<starts[item.characters.upperBound]
            return shapeRun(paragraph, scalars: scalars, font: item.font, pixelSize: pixelSize)
        }
    }

    private func shapeRun(_ paragraph: Paragraph, scalars: Range<Int>, font: Int, pixelSize: Int) -> Run? {
        var candidate = catalog.candidates[font]
        var loaded = face(for: candidate, pixelSize: pixelSize)
        if loaded == nil {
            candidate = catalog.candidates[0]
            loaded = face(for: candidate, pixelSize: pixelSize)
        }
        guard let face = loaded else { return nil }

        hb_buffer_clear_contents(buffer)
        // The whole paragraph goes in as context so that joining scripts shape correctly at run edges.
        paragraph.scalars.withUnsafeBufferPointer { all in
            hb_buffer_add_utf32(
                buffer, all.baseAddress, Int32(all.count), UInt32(scalars.lowerBound), Int32(scalars.count))
        }
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(face.hbFont, buffer, nil, 0)

        var count: UInt32 = 0
        let infos = hb_buffer_get_glyph_infos(buffer, &count)
        let positions = hb_buffer_get_glyph_positions(buffer, &count)
        var shaped: [ShapedGlyph] = []
        if let infos, let positions {
            shaped.reserveCapacity(Int(count))
            func scaled(_ value: hb_position_t) -> Int32 {
                face.scale == 1 ? value : Int32((Double(value) * face.scale).rounded())
            }
            for index in 0..<Int(count) {
                let info = infos[index]
                let position = positions[index]
                shaped.append(
                    ShapedGlyph(
                        id: info.codepoint, cluster: paragraph.textOffset + Int(info.cluster),
                        xAdvance: scaled(position.x_advance), yAdvance: scaled(position.y_advance),
                        xOffset: scaled(position.x_offset), yOffset: scaled(position.y_offset)))
            }
        }
        let range = (paragraph.textOffset + scalars.lowerBound)..<(paragraph.textOffset + scalars.upperBound)
        return Run(
            face: face,
            shaped: ShapedRun(
                fontFamily: candidate.family, fontFile: candidate.file, faceIndex: candidate.index,
                scalarRange: range, glyphs: shaped))
    }

    // MARK: - Faces and glyphs

    private func primaryFace(pixelSize: Int) -> LoadedFace? {
        face(for: catalog.candidates[0], pixelSize: pixelSize)
    }

    /// The cached face, opening it on first use; nil (remembered, so it is not retried) if FreeType cannot.
    private func face(for candidate: FontCandidate, pixelSize: Int) -> LoadedFace? {
        let key = FaceKey(file: candidate.file, index: candidate.index, pixelSize: pixelSize)
        if let face = faces[key] { return face }
        guard !failedFaces.contains(key), let face = try? loadFace(key) else {
            failedFaces.insert(key)
            return nil
        }
        return face
    }

    private func loadFace(_ key: FaceKey) throws -> LoadedFace {
        let face = try LoadedFace(library: library, key: key, serial: faces.count)
        faces[key] = face
        statistics.facesLoaded += 1
        return face
    }

    private func glyphImage(_ glyph: UInt32, face: LoadedFace) -> GlyphImage {
        let key = GlyphKey(face: face.serial, glyph: glyph)
        if let image = glyphs[key] {
            statistics.glyphCacheHits += 1
            return image
        }
        if glyphs.count >= Self.glyphCacheLimit { glyphs.removeAll(keepingCapacity: true) }
        let image = rasterize(glyph, face: face)
        glyphs[key] = image
        return image
    }

    private func rasterize(_ glyph: UInt32, face: LoadedFace) -> GlyphImage {
        statistics.glyphsRasterized += 1
        // Light hinting: sharper stems vertically, horizontal positions untouched (they come from HarfBuzz).
        let lightTarget = (Int32(FT_RENDER_MODE_LIGHT.rawValue) & 15) << 16
        let flags = Int32(FT_LOAD_DEFAULT) | lightTarget | (face.hasColor ? Int32(FT_LOAD_COLOR) : 0)
        guard FT_Load_Glyph(face.face, glyph, flags) == 0, let slot = face.face.pointee.glyph else {
            statistics.glyphsSkipped += 1
            return .blank
        }
        if slot.pointee.format != FT_GLYPH_FORMAT_BITMAP, FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL) != 0 {
            statistics.glyphsSkipped += 1
            return .blank
        }
        let (image, conversion) = GlyphImage.from(slot: slot)
        switch conversion {
        case .coverage: break
        case .colorToCoverage: statistics.colorGlyphsConverted += 1
        case .unsupported: statistics.glyphsSkipped += 1
        }
        return image.scaled(by: face.scale)
    }
}
