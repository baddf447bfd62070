/// Why a ``TextRasterizer`` could not be created.
///
/// Rendering itself never throws: a glyph that cannot be loaded is skipped and counted in
/// ``TextRasterizer/Statistics`` so that one bad font cannot take the display thread down.
public enum TextRenderingError: Error, Equatable, CustomStringConvertible {
    /// `FcInitLoadConfigAndFonts` returned nothing (no readable fontconfig configuration).
    case fontconfigUnavailable
    /// fontconfig knows no font at all for this family, not even a fallback (no fonts installed?).
    case noFontFound(family: String)
    /// `FT_Init_FreeType` failed with this FreeType error code.
    case freeTypeInitFailed(code: Int32)
    /// The font fontconfig chose could not be opened by FreeType.
    case faceLoadFailed(file: String, index: Int, code: Int32)
    /// `hb_buffer_create` could not allocate.
    case harfBuzzAllocationFailed

    public var description: String {
        switch self {
        case .fontconfigUnavailable:
            return "fontconfig could not load its configuration (FcInitLoadConfigAndFonts returned NULL)"
        case .noFontFound(let family):
            return "fontconfig found no font for family \"\(family)\"; install one, e.g. fonts-dejavu-core"
        case .freeTypeInitFailed(let code):
            return "FT_Init_FreeType failed with FreeType error \(code)"
        case .faceLoadFailed(let file, let index, let code):
            return "FreeType could not open face \(index) of \(file) (FreeType error \(code))"
        case .harfBuzzAllocationFailed:
            return "hb_buffer_create failed to allocate"
        }
    }
}
