import Outputs

/// The background colour of each screen, so that a person (or a screenshot test) can tell screens apart.
///
/// Colours are dark enough for white text and far apart from each other (every pair differs by at least 40 in
/// some channel), and none is sway's default grey background.
public enum ScreenPalette {
    public static let backgrounds: [RGBColor] = [
        RGBColor(hex: 0x1E_3A_8A),  // blue
        RGBColor(hex: 0x7C_1D_1D),  // red
        RGBColor(hex: 0x14_6C_2E),  // green
        RGBColor(hex: 0x6B_21_A8),  // purple
        RGBColor(hex: 0x9A_4A_00),  // amber
        RGBColor(hex: 0x0E_6E_73),  // teal
        RGBColor(hex: 0xA3_1A_6E),  // magenta
        RGBColor(hex: 0x3F_3F_46),  // slate
    ]

    /// Background for the screen at `index` (0-based position in ``OutputTracker/outputs``).
    public static func background(forScreenAt index: Int) -> RGBColor {
        backgrounds[index % backgrounds.count]
    }

    public static let text = RGBColor(hex: 0xF8_FA_FC)
}
