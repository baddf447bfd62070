import CFontconfig

/// A font that fontconfig offered for the requested family, in preference order.
struct FontCandidate {
    let file: String
    let index: Int
    let family: String
    /// A colour font (emoji). Its space is as wide as an emoji, so whitespace is not shaped with it.
    let isColor: Bool
    /// Borrowed from the pattern inside the owning ``FontCatalog``'s font set; valid as long as it is.
    let charset: OpaquePointer?

    func covers(_ scalar: Unicode.Scalar) -> Bool {
        guard let charset else { return false }
        return FcCharSetHasChar(charset, scalar.value) != 0
    }
}

/// Owns the fontconfig configuration and the fallback list for one family, and picks a font per character.
///
/// The list comes from `FcFontSort` with trimming, so every entry adds coverage the ones before it lack: the
/// first entry is the family's best match (the primary font) and the rest are fallbacks for what it cannot show.
final class FontCatalog {
    private let config: OpaquePointer
    private let fontSet: UnsafeMutablePointer<FcFontSet>
    let candidates: [FontCandidate]
    /// Font chosen per scalar value, so the charset scan runs once per distinct character.
    private var choiceCache: [UInt32: Int] = [:]

    init(family: String) throws {
        guard let config = FcInitLoadConfigAndFonts() else { throw TextRenderingError.fontconfigUnavailable }
        guard let pattern = FcNameParse(family) else {
            FcConfigDestroy(config)
            throw TextRenderingError.noFontFound(family: family)
        }
        defer { FcPatternDestroy(pattern) }
        FcConfigSubstitute(config, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        guard let fontSet = FcFontSort(config, pattern, FcBool(FcTrue), nil, &result) else {
            FcConfigDestroy(config)
            throw TextRenderingError.noFontFound(family: family)
        }
        var candidates: [FontCandidate] = []
        let count = Int(fontSet.pointee.nfont)
        for i in 0..<count {
            guard let font = fontSet.pointee.fonts[i] else { continue }
            var file: UnsafeMutablePointer<FcChar8>?
            guard FcPatternGetString(font, FC_FILE, 0, &file) == FcResultMatch, let file else { continue }
            var index: Int32 = 0
            _ = FcPatternGetInteger(font, FC_INDEX, 0, &index)
            var familyName: UnsafeMutablePointer<FcChar8>?
            _ = FcPatternGetString(font, FC_FAMILY, 0, &familyName)
            var color: FcBool = 0
            _ = FcPatternGetBool(font, FC_COLOR, 0, &color)
            var charset: OpaquePointer?
            _ = FcPatternGetCharSet(font, FC_CHARSET, 0, &charset)
            candidates.append(
                FontCandidate(
                    file: String(cString: file), index: Int(index),
                    family: familyName.map { String(cString: $0) } ?? "", isColor: color != 0, charset: charset))
        }
        guard !candidates.isEmpty else {
            FcFontSetDestroy(fontSet)
            FcConfigDestroy(config)
            throw TextRenderingError.noFontFound(family: family)
        }
        self.config = config
        self.fontSet = fontSet
        self.candidates = candidates
    }

    deinit {
        // The candidates' charsets point into the font set: it goes first, then the configuration.
        FcFontSetDestroy(fontSet)
        FcConfigDestroy(config)
    }

    /// Whether `character` may be shaped with the font at `index`: it covers every visible scalar, and it is not
    /// a colour font if `character` is whitespace.
    func font(_ index: Int, canShow character: Character) -> Bool {
        let candidate = candidates[index]
        if candidate.isColor && character.isWhitespace { return false }
        return Self.visibleScalars(character).allSatisfy(candidate.covers)
    }

    /// Index into ``candidates`` of the first font that can show `character` (see ``font(_:canShow:)``), else the
    /// first covering its first scalar, else the primary font (0), so that missing glyphs show as its tofu.
    func fontIndex(for character: Character) -> Int {
        let visible = Self.visibleScalars(character)
        guard let first = visible.first else { return 0 }
        if visible.count == 1, let cached = choiceCache[first.value] { return cached }
        let chosen =
            candidates.indices.first { font($0, canShow: character) }
            ?? candidates.firstIndex { $0.covers(first) } ?? 0
        if visible.count == 1 { choiceCache[first.value] = chosen }
        return chosen
    }

    /// Joiners and variation selectors are invisible; requiring them would reject fonts that draw the rest.
    private static func visibleScalars(_ character: Character) -> [Unicode.Scalar] {
        character.unicodeScalars.filter { !$0.properties.isDefaultIgnorableCodePoint }
    }
}
