import CFreeType

/// Owns one `FT_Library`.
///
/// A class of its own so that every ``LoadedFace`` can hold it strongly: ARC then guarantees that
/// `FT_Done_FreeType` runs only after the last `FT_Done_Face`, whatever order the owners are released in.
final class FreeTypeLibrary {
    let handle: FT_Library

    init() throws {
        var library: FT_Library?
        let error = FT_Init_FreeType(&library)
        guard error == 0, let library else { throw TextRenderingError.freeTypeInitFailed(code: error) }
        handle = library
    }

    deinit {
        FT_Done_FreeType(handle)
    }
}
