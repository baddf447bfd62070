import Outputs
import Testing

@testable import Screens

@Suite struct ScreenThemeTests {
    @Test func defaultsWithoutATheme() throws {
        let theme = try RoleConfig.parse("").theme
        #expect(theme == ScreenTheme())
        #expect(theme.showsTime && !theme.showsName && !theme.showsInfo)
        #expect(theme.alignment == .start && theme.fontScale == 1 && theme.font == nil && theme.background == nil)
    }

    @Test func parsesEveryKey() throws {
        let theme = try RoleConfig.parse(
            """
            [theme]
            font = "DejaVu Serif"
            font-scale = 1.5
            background = "#102030"
            text = "FFEEDD"
            secondary = "#aabbcc"
            align = "center"
            show-time = false
            show-name = true
            info = true
            """
        ).theme
        #expect(
            theme
                == ScreenTheme(
                    font: "DejaVu Serif", fontScale: 1.5, background: RGBColor(hex: 0x10_20_30),
                    text: RGBColor(hex: 0xFF_EE_DD), secondary: RGBColor(hex: 0xAA_BB_CC), alignment: .center,
                    showsTime: false, showsName: true, showsInfo: true))
        #expect(try RoleConfig.parse("[theme]\nfont-scale = 2").theme.fontScale == 2)
    }

    @Test func refusesWhatItCannotUse() {
        let cases: [(String, RoleConfigError)] = [
            (
                "[theme]\nfont-size = 3",
                .unknownKey(file: nil, key: "theme.font-size", expected: ScreenTheme.keys)
            ),
            ("theme = 3", .wrongType(file: nil, key: "theme", expected: "a table")),
            (
                "[theme]\nbackground = \"#12345\"",
                .invalidValue(file: nil, key: "theme.background", value: "#12345", reason: "expected \"#RRGGBB\"")
            ),
            (
                "[theme]\ntext = \"#GG0000\"",
                .invalidValue(file: nil, key: "theme.text", value: "#GG0000", reason: "expected \"#RRGGBB\"")
            ),
            (
                "[theme]\nsecondary = 5",
                .wrongType(file: nil, key: "theme.secondary", expected: "a colour string such as \"#102030\"")
            ),
            (
                "[theme]\nalign = \"left\"",
                .invalidValue(
                    file: nil, key: "theme.align", value: "left", reason: "expected one of: start, center, end")
            ),
            (
                "[theme]\nfont-scale = 9",
                .invalidValue(file: nil, key: "theme.font-scale", value: "9.0", reason: "expected 0.25 to 4")
            ),
            ("[theme]\nfont-scale = \"big\"", .wrongType(file: nil, key: "theme.font-scale", expected: "a number")),
            ("[theme]\ninfo = \"yes\"", .wrongType(file: nil, key: "theme.info", expected: "true or false")),
            (
                "[theme]\nfont = \" \"",
                .invalidValue(file: nil, key: "theme.font", value: " ", reason: "name a font family")
            ),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text)") { try RoleConfig.parse(text) }
        }
    }
}
