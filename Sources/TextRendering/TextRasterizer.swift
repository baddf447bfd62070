import CPangoCairo

/// Lays text out with Pango and draws it with cairo into premultiplied ARGB bitmaps.
///
/// Pango does what a text renderer must not hand-write: the bidirectional algorithm (UAX #9, through FriBidi), line
/// breaking (UAX #14), itemisation by script and font with fontconfig's fallback, shaping with HarfBuzz, and
/// ellipsis. cairo draws colour glyphs (emoji) in their own colours and everything else in the style's colour.
///
/// Every call takes a ``TextBox`` and a texture size limit: the result is never wider or taller than the box or
/// the limit, text that does not fit ends in "…", and input longer than the box could ever show is cut before
/// layout (``VisibleText/characterBudget(pixelSize:box:maxTextureSize:)``), so the cost of a call is bounded by
/// the box, not by the text.
///
/// Not thread-safe (Pango contexts are not): create it anywhere, then use it from one thread at a time.
public final class TextRasterizer {
    /// Counters for tests and diagnostics.
    public struct Statistics: Sendable, Equatable {
        /// Layouts rendered into bitmaps.
        public var rendered = 0
        /// Layouts only measured.
        public var measured = 0
        /// Inputs cut to the character budget before layout.
        public var inputsCut = 0
        /// Largest bitmap made, in bytes.
        public var largestBitmapBytes = 0
    }

    /// The family used when a ``TextStyle`` names none.
    public let family: String
    public private(set) var statistics = Statistics()

    private let fontMap: UnsafeMutablePointer<PangoFontMap>
    private let context: OpaquePointer
    /// The memory texts are drawn into, ``scratchKeptBytes`` kept from one text to the next. A fresh buffer per text
    /// is fresh pages: above glibc's mmap threshold (128 KiB, a message's line at a wall's size) each allocation is a
    /// new mapping whose every page faults in and is zeroed by the kernel, which cost a software renderer more than
    /// drawing the glyphs did. Allocated whole at the first text, far above that threshold, so that it is a mapping
    /// of its own, never in the heap; only the pages texts have used are resident.
    private var scratch = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    /// The scratch memory kept between texts: a 1920 × 540 bitmap. A larger text gets memory of its own, freed after
    /// it.
    static let scratchKeptBytes = 4 << 20
    /// A raster is lent (``withRaster(_:style:box:maxTextureSize:_:)``): its memory may not be drawn into again.
    private var isLending = false

    /// Creates the font map (fontconfig's configuration is loaded here, ~50 ms the first time) and checks that
    /// `family` resolves to a font.
    public init(family: String = "sans-serif") throws {
        guard let fontMap = pango_cairo_font_map_new() else { throw TextRenderingError.pangoUnavailable }
        guard let context = pango_font_map_create_context(fontMap) else {
            g_object_unref(fontMap)
            throw TextRenderingError.pangoUnavailable
        }
        self.fontMap = fontMap
        self.context = context
        self.family = family
        // Grey antialiasing (the texture is drawn 1:1, never subpixel), slight hinting, unhinted metrics so that
        // positions come from HarfBuzz unchanged.
        let options = cairo_font_options_create()
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_SLIGHT)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        pango_cairo_context_set_font_options(context, options)
        cairo_font_options_destroy(options)
        guard let description = Self.fontDescription(family: family, pixelSize: 16, bold: false) else {
            throw TextRenderingError.noFontFound(family: family)
        }
        defer { pango_font_description_free(description) }
        guard let font = pango_font_map_load_font(fontMap, context, description) else {
            throw TextRenderingError.noFontFound(family: family)
        }
        g_object_unref(font)
    }

    deinit {
        scratch.deallocate()
        g_object_unref(UnsafeMutableRawPointer(context))
        g_object_unref(fontMap)
    }

    /// Whether `text`'s first strong character is right-to-left (UAX #9 rules P2–P3, as Pango decides a
    /// paragraph's direction): such text starts at the right, and what belongs with it (its time) goes there too.
    /// Looks at the first 256 characters.
    public static func isRightToLeft(_ text: String) -> Bool {
        let scalars = text.unicodeScalars.prefix(256).map { FriBidiChar($0.value) }
        return cpango_paragraph_is_rtl(scalars, Int32(scalars.count)) != 0
    }

    /// The family of the font Pango picks for `text`'s first character in `style` (fallback included), for tests
    /// and diagnostics.
    public func fontFamily(for text: String, style: TextStyle) -> String? {
        guard let layout = makeLayout(text, style: style, box: TextBox(), maxTextureSize: 4096) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(layout.pointer)) }
        guard let iterator = pango_layout_get_iter(layout.pointer) else { return nil }
        defer { pango_layout_iter_free(iterator) }
        guard let run = pango_layout_iter_get_run_readonly(iterator), let item = run.pointee.item,
            let font = item.pointee.analysis.font, let description = pango_font_describe(font)
        else { return nil }
        defer { pango_font_description_free(description) }
        return pango_font_description_get_family(description).map { String(cString: $0) }
    }

    /// The text of each line as laid out in `box` (logical order, before ellipsis), for tests of line breaking.
    public func lines(_ text: String, style: TextStyle, box: TextBox = TextBox(), maxTextureSize: Int = 4096)
        -> [String]
    {
        guard let layout = makeLayout(text, style: style, box: box, maxTextureSize: maxTextureSize) else { return [] }
        defer { g_object_unref(UnsafeMutableRawPointer(layout.pointer)) }
        guard let base = pango_layout_get_text(layout.pointer) else { return [] }
        let bytes = UnsafeBufferPointer(
            start: UnsafeRawPointer(base).assumingMemoryBound(to: UInt8.self), count: strlen(base))
        return (0..<pango_layout_get_line_count(layout.pointer)).compactMap { index in
            guard let line = pango_layout_get_line_readonly(layout.pointer, index) else { return nil }
            let start = Int(line.pointee.start_index)
            let end = min(start + Int(line.pointee.length), bytes.count)
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
    }

    /// Lays out and draws `text` within `box`, no side longer than `maxTextureSize`. Empty text (or text drawing
    /// nothing) gives a 0×0 bitmap.
    public func render(_ text: String, style: TextStyle, box: TextBox = TextBox(), maxTextureSize: Int = 4096)
        -> TextBitmap
    {
        withRaster(text, style: style, box: box, maxTextureSize: maxTextureSize) { raster in
            guard let raster else { return .empty }
            return TextBitmap(
                width: raster.width, height: raster.height, originX: raster.originX, baseline: raster.baseline,
                lineCount: raster.lineCount, isEllipsized: raster.isEllipsized,
                pixels: [UInt32](raster.pixels.bindMemory(to: UInt32.self)))
        }
    }

    /// Lays out and draws `text` as ``render(_:style:box:maxTextureSize:)`` does, into memory the rasterizer keeps
    /// from one text to the next, and lends it to `body`: nil for empty text (or text drawing nothing). The raster
    /// must not outlive `body`, and `body` may not draw another text with this rasterizer.
    public func withRaster<Result>(
        _ text: String, style: TextStyle, box: TextBox = TextBox(), maxTextureSize: Int = 4096,
        _ body: (TextRaster?) -> Result
    ) -> Result {
        guard let layout = makeLayout(text, style: style, box: box, maxTextureSize: maxTextureSize) else {
            return body(nil)
        }
        defer { g_object_unref(UnsafeMutableRawPointer(layout.pointer)) }
        let frame = layout.frame
        guard frame.width > 0, frame.height > 0 else { return body(nil) }
        precondition(!isLending, "a text drawn while another is lent")
        isLending = true
        defer { isLending = false }
        let memory = pixelMemory(bytes: frame.width * frame.height * 4)
        defer { if memory.baseAddress != scratch.baseAddress { memory.deallocate() } }
        let pixels = UnsafeMutableRawBufferPointer(rebasing: memory[0..<frame.width * frame.height * 4])
        // Transparent before the glyphs: cairo draws over what is there.
        pixels.initializeMemory(as: UInt8.self, repeating: 0)
        // ARGB32's stride for any width is width × 4 bytes, so the surface's rows are the bitmap's.
        guard
            let surface = cairo_image_surface_create_for_data(
                pixels.baseAddress?.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32, Int32(frame.width),
                Int32(frame.height), Int32(frame.width * 4))
        else { return body(nil) }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cairo = cairo_create(surface) else {
            return body(nil)
        }
        cairo_set_source_rgb(cairo, style.color.red, style.color.green, style.color.blue)
        cairo_move_to(cairo, Double(-frame.x), Double(-frame.y))
        pango_cairo_show_layout(cairo, layout.pointer)
        cairo_destroy(cairo)
        cairo_surface_flush(surface)
        statistics.rendered += 1
        statistics.largestBitmapBytes = max(statistics.largestBitmapBytes, pixels.count)
        return body(
            TextRaster(
                width: frame.width, height: frame.height, originX: frame.x, baseline: layout.baseline,
                lineCount: layout.lineCount, isEllipsized: layout.isEllipsized, pixels: UnsafeRawBufferPointer(pixels)))
    }

    /// At least `bytes` of memory for a bitmap: the kept scratch memory (allocated at the first text), else, for a
    /// text larger than ``scratchKeptBytes``, memory of its own, which the caller frees.
    private func pixelMemory(bytes: Int) -> UnsafeMutableRawBufferPointer {
        guard bytes <= Self.scratchKeptBytes else {
            return UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 16)
        }
        if scratch.baseAddress == nil {
            scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.scratchKeptBytes, alignment: 16)
        }
        return scratch
    }

    /// The size ``render(_:style:box:maxTextureSize:)`` would return, without drawing.
    public func measure(_ text: String, style: TextStyle, box: TextBox = TextBox(), maxTextureSize: Int = 4096)
        -> (width: Int, height: Int)
    {
        guard let layout = makeLayout(text, style: style, box: box, maxTextureSize: maxTextureSize) else {
            return (0, 0)
        }
        defer { g_object_unref(UnsafeMutableRawPointer(layout.pointer)) }
        statistics.measured += 1
        return (layout.frame.width, layout.frame.height)
    }

    /// Where a caret before character `index` (grapheme clusters) of `text`, laid out on one line, goes: the
    /// x of Pango's strong cursor, in pixels from the left of the bitmap ``render(_:style:box:maxTextureSize:)``
    /// makes. In right-to-left text the start is on the right, so the caret moves left as characters are typed.
    public func caretX(in text: String, beforeCharacter index: Int, style: TextStyle, maxTextureSize: Int = 4096)
        -> Int
    {
        guard let layout = makeLayout(text, style: style, box: TextBox(maxLines: 1), maxTextureSize: maxTextureSize)
        else { return 0 }
        defer { g_object_unref(UnsafeMutableRawPointer(layout.pointer)) }
        let before = VisibleText.sanitized(String(text.prefix(max(index, 0))), keepsLineBreaks: false)
        var strong = PangoRectangle()
        var weak = PangoRectangle()
        pango_layout_get_cursor_pos(layout.pointer, Int32(before.utf8.count), &strong, &weak)
        return Int(strong.x) / Int(PANGO_SCALE) - layout.frame.x
    }

    // MARK: - Layout

    private struct Layout {
        let pointer: OpaquePointer
        /// The part of the layout's coordinates the bitmap covers.
        var frame: (x: Int, y: Int, width: Int, height: Int)
        var baseline: Int
        var lineCount: Int
        var isEllipsized: Bool
    }

    private static func fontDescription(family: String, pixelSize: Int, bold: Bool) -> OpaquePointer? {
        guard let description = pango_font_description_new() else { return nil }
        pango_font_description_set_family(description, family)
        pango_font_description_set_absolute_size(description, Double(cpango_units_from_pixels(Int32(pixelSize))))
        if bold { pango_font_description_set_weight(description, PANGO_WEIGHT_BOLD) }
        return description
    }

    /// A laid-out PangoLayout the caller releases, or nil for empty text.
    private func makeLayout(_ text: String, style: TextStyle, box: TextBox, maxTextureSize: Int) -> Layout? {
        let limit = max(maxTextureSize, 1)
        let pixelSize = min(max(style.pixelSize, 1), limit)
        let singleLine = box.maxLines == 1
        let budget = VisibleText.characterBudget(pixelSize: pixelSize, box: box, maxTextureSize: limit)
        let (cut, wasCut) = VisibleText.prefix(text, characters: budget)
        if wasCut { statistics.inputsCut += 1 }
        let visible = VisibleText.sanitized(cut, keepsLineBreaks: !singleLine)
        guard !visible.isEmpty, let layout = pango_layout_new(context) else { return nil }
        if let description = Self.fontDescription(
            family: style.family ?? family, pixelSize: pixelSize, bold: style.bold)
        {
            pango_layout_set_font_description(layout, description)
            pango_font_description_free(description)
        }
        pango_layout_set_text(layout, visible, -1)
        pango_layout_set_auto_dir(layout, 1)
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        switch style.alignment {
        case .start: pango_layout_set_alignment(layout, PANGO_ALIGN_LEFT)
        case .center: pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
        case .end: pango_layout_set_alignment(layout, PANGO_ALIGN_RIGHT)
        }
        let maxHeight = min(box.maxHeight ?? limit, limit)
        if let maxWidth = box.maxWidth {
            pango_layout_set_width(layout, cpango_units_from_pixels(Int32(min(max(maxWidth, 1), limit))))
        }
        pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        if let maxLines = box.maxLines {
            pango_layout_set_height(layout, -Int32(max(maxLines, 1)))
        } else {
            pango_layout_set_height(layout, cpango_units_from_pixels(Int32(maxHeight)))
        }
        var ink = PangoRectangle()
        var logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        if box.maxWidth == nil, logical.width > limit {
            // Wider than a texture may be: wrap at the limit instead.
            pango_layout_set_width(layout, cpango_units_from_pixels(Int32(limit)))
            pango_layout_get_pixel_extents(layout, &ink, &logical)
        }
        if box.maxLines != nil, logical.height > maxHeight {
            pango_layout_set_height(layout, cpango_units_from_pixels(Int32(maxHeight)))
            pango_layout_get_pixel_extents(layout, &ink, &logical)
        }
        var frame = (
            x: Int(logical.x), y: Int(logical.y), width: Int(logical.width), height: Int(logical.height)
        )
        // Whatever Pango allowed (it keeps at least one line), the bitmap stays inside the box and the limit.
        if let maxWidth = box.maxWidth {
            frame.x = min(max(frame.x, 0), max(maxWidth - 1, 0))
            frame.width = min(frame.width, max(maxWidth - frame.x, 0))
        }
        frame.width = min(frame.width, limit)
        frame.height = min(frame.height, maxHeight)
        return Layout(
            pointer: layout, frame: frame, baseline: Int(pango_layout_get_baseline(layout)) / Int(PANGO_SCALE),
            lineCount: Int(pango_layout_get_line_count(layout)),
            isEllipsized: wasCut || pango_layout_is_ellipsized(layout) != 0)
    }
}
