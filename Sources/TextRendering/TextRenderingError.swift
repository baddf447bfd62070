/// Why a ``TextRasterizer`` could not be created.
///
/// Rendering itself never throws: text that cannot be laid out gives an empty bitmap, so that one bad string or
/// font cannot take the display thread down.
public enum TextRenderingError: Error, Equatable, CustomStringConvertible {
    /// Pango could not make a cairo font map or context (no fontconfig configuration?).
    case pangoUnavailable
    /// Pango found no font at all for this family, not even a fallback (no fonts installed?).
    case noFontFound(family: String)

    public var description: String {
        switch self {
        case .pangoUnavailable:
            return "Pango could not create a cairo font map (is fontconfig configured?)"
        case .noFontFound(let family):
            return "Pango found no font for family \"\(family)\"; install one, e.g. fonts-dejavu-core"
        }
    }
}
