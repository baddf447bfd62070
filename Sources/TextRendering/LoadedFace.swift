import CFreeType
import CHarfBuzz

/// Identifies a face at one size: the unit of the face cache.
struct FaceKey: Hashable {
    let file: String
    let index: Int
    let pixelSize: Int
}

/// One font face opened at one pixel size: the `FT_Face` and the `hb_font_t` HarfBuzz shapes with.
///
/// Scalable fonts are sized with `FT_Set_Pixel_Sizes`. Bitmap-only fonts (colour emoji strikes) can only be
/// selected at a fixed strike with `FT_Select_Size`; ``scale`` then maps the strike's pixels to the requested
/// size and is applied to positions, metrics and glyph images alike.
final class LoadedFace {
    /// Keeps FreeType alive until this face is done (see ``FreeTypeLibrary``).
    private let library: FreeTypeLibrary
    let face: FT_Face
    /// Small unique number within the owning rasterizer: the glyph cache's key for this face and size.
    let serial: Int
    let hbFont: OpaquePointer
    /// Requested pixel size divided by the selected size: 1 for scalable fonts.
    let scale: Double
    let hasColor: Bool
    /// Line metrics in whole pixels at the requested size.
    let ascent: Int
    let descent: Int
    let lineHeight: Int

    init(library: FreeTypeLibrary, key: FaceKey, serial: Int) throws {
        var loaded: FT_Face?
        var error = FT_New_Face(library.handle, key.file, key.index, &loaded)
        guard error == 0, let face = loaded else {
            throw TextRenderingError.faceLoadFailed(file: key.file, index: key.index, code: error)
        }
        var scale = 1.0
        if face.pointee.face_flags & FT_Long(FT_FACE_FLAG_SCALABLE) != 0 {
            error = FT_Set_Pixel_Sizes(face, 0, FT_UInt(key.pixelSize))
        } else if face.pointee.num_fixed_sizes > 0, let sizes = face.pointee.available_sizes {
            let strikes = (0..<Int(face.pointee.num_fixed_sizes)).map { Double(sizes[$0].y_ppem) / 64 }
            let best = Self.bestStrike(strikes, for: Double(key.pixelSize))
            error = FT_Select_Size(face, FT_Int(best))
            scale = Double(key.pixelSize) / strikes[best]
        } else {
            error = FT_Error(FT_Err_Invalid_Pixel_Size)
        }
        guard error == 0 else {
            FT_Done_Face(face)
            throw TextRenderingError.faceLoadFailed(file: key.file, index: key.index, code: error)
        }
        // hb-ft takes the size from the face, so it must be set first. The referenced variant holds its own
        // reference on the face (FT_Reference_Face), released by hb_font_destroy.
        guard let hbFont = hb_ft_font_create_referenced(face) else {
            FT_Done_Face(face)
            throw TextRenderingError.harfBuzzAllocationFailed
        }
        // Unhinted advances: light hinting when rasterising only moves outlines vertically, so glyph images
        // still fit these horizontal positions.
        hb_ft_font_set_load_flags(hbFont, Int32(FT_LOAD_DEFAULT) | Int32(FT_LOAD_NO_HINTING) | Int32(FT_LOAD_COLOR))

        let metrics = face.pointee.size.pointee.metrics
        self.library = library
        self.face = face
        self.serial = serial
        self.hbFont = hbFont
        self.scale = scale
        self.hasColor = face.pointee.face_flags & FT_Long(FT_FACE_FLAG_COLOR) != 0
        ascent = Int((Double(metrics.ascender) * scale / 64).rounded(.up))
        descent = Int((Double(-metrics.descender) * scale / 64).rounded(.up))
        lineHeight = max(Int((Double(metrics.height) * scale / 64).rounded(.up)), ascent + descent)
    }

    deinit {
        // Reverse order of creation: HarfBuzz drops its reference on the face, then ours goes.
        hb_font_destroy(hbFont)
        FT_Done_Face(face)
    }

    /// The smallest strike at least as large as the wanted size (downscaling looks better than upscaling), or
    /// the largest strike if all are smaller.
    static func bestStrike(_ strikes: [Double], for size: Double) -> Int {
        let larger = strikes.indices.filter { strikes[$0] >= size }
        if let smallestLarger = larger.min(by: { strikes[$0] < strikes[$1] }) { return smallestLarger }
        return strikes.indices.max { strikes[$0] < strikes[$1] } ?? 0
    }
}
