import Foundation
import Outputs
import TOMLKit

/// How external screens present their content: the `[theme]` section of the config file.
///
/// ```toml
/// [theme]
/// font = "DejaVu Serif"     # a fontconfig family; fallback fonts (CJK, Arabic, emoji) still apply
/// font-scale = 1.25         # multiplies every text size (0.25 … 4); sizes follow the output's size
/// background = "#102030"    # every external screen (default: each screen its own colour)
/// text = "#ffffff"          # message text
/// secondary = "#cbd5e1"     # times, the info overlay
/// align = "center"          # start | center | end; start is the left for left-to-right text, the right for RTL
/// show-time = true          # the time each message arrived
/// show-name = false         # the screen's name above its messages
/// info = false              # installer overlay: output name, mode and scale in a corner
/// ```
public struct ScreenTheme: Equatable, Sendable {
    public enum Alignment: String, Equatable, Sendable, CaseIterable {
        case start, center, end
    }

    public var font: String?
    public var fontScale: Double
    public var background: RGBColor?
    public var text: RGBColor?
    public var secondary: RGBColor?
    public var alignment: Alignment
    public var showsTime: Bool
    public var showsName: Bool
    /// The installer overlay: the output's name and mode.
    public var showsInfo: Bool

    public init(
        font: String? = nil, fontScale: Double = 1, background: RGBColor? = nil, text: RGBColor? = nil,
        secondary: RGBColor? = nil, alignment: Alignment = .start, showsTime: Bool = true, showsName: Bool = false,
        showsInfo: Bool = false
    ) {
        self.font = font
        self.fontScale = fontScale
        self.background = background
        self.text = text
        self.secondary = secondary
        self.alignment = alignment
        self.showsTime = showsTime
        self.showsName = showsName
        self.showsInfo = showsInfo
    }

    static let keys = [
        "font", "font-scale", "background", "text", "secondary", "align", "show-time", "show-name", "info",
    ]
    static let fontScales = 0.25...4.0

    /// Parses a `[theme]` table (the keys above; any other is an error).
    static func parse(_ table: TOMLTable) throws(RoleConfigError) -> ScreenTheme {
        for key in table.keys.sorted() where !keys.contains(key) {
            throw .unknownKey(file: nil, key: "theme.\(key)", expected: keys)
        }
        var theme = ScreenTheme()
        if let value = table["font"] {
            guard let font = value.string else { throw .wrongType(file: nil, key: "theme.font", expected: "a string") }
            guard !font.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw .invalidValue(file: nil, key: "theme.font", value: font, reason: "name a font family")
            }
            theme.font = font
        }
        if let value = table["font-scale"] {
            guard let scale = value.double ?? value.int.map(Double.init) else {
                throw .wrongType(file: nil, key: "theme.font-scale", expected: "a number")
            }
            guard fontScales.contains(scale) else {
                throw .invalidValue(
                    file: nil, key: "theme.font-scale", value: "\(scale)", reason: "expected 0.25 to 4")
            }
            theme.fontScale = scale
        }
        theme.background = try color(table, "background")
        theme.text = try color(table, "text")
        theme.secondary = try color(table, "secondary")
        if let value = table["align"] {
            guard let name = value.string else { throw .wrongType(file: nil, key: "theme.align", expected: "a string") }
            guard let alignment = Alignment(rawValue: name) else {
                throw .invalidValue(
                    file: nil, key: "theme.align", value: name, reason: "expected one of: start, center, end")
            }
            theme.alignment = alignment
        }
        theme.showsTime = try flag(table, "show-time") ?? theme.showsTime
        theme.showsName = try flag(table, "show-name") ?? theme.showsName
        theme.showsInfo = try flag(table, "info") ?? theme.showsInfo
        return theme
    }

    private static func flag(_ table: TOMLTable, _ key: String) throws(RoleConfigError) -> Bool? {
        guard let value = table[key] else { return nil }
        guard let flag = value.bool else { throw .wrongType(file: nil, key: "theme.\(key)", expected: "true or false") }
        return flag
    }

    /// "#RRGGBB" (or "RRGGBB").
    private static func color(_ table: TOMLTable, _ key: String) throws(RoleConfigError) -> RGBColor? {
        guard let value = table[key] else { return nil }
        guard let text = value.string else {
            throw .wrongType(file: nil, key: "theme.\(key)", expected: "a colour string such as \"#102030\"")
        }
        let digits = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let hex = UInt32(digits, radix: 16) else {
            throw .invalidValue(file: nil, key: "theme.\(key)", value: text, reason: "expected \"#RRGGBB\"")
        }
        return RGBColor(hex: hex)
    }
}
