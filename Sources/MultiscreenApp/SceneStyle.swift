import Glibc
import Outputs
import Screens

/// Colours and small helpers the scenes share.
enum SceneStyle {
    static let text = ScreenPalette.text
    static let dimText = RGBColor(hex: 0xCB_D5_E1)
    static let panel = RGBColor(hex: 0x0F_17_2A)
    static let field = RGBColor(hex: 0xF8_FA_FC)
    static let fieldText = RGBColor(hex: 0x0F_17_2A)
    /// The focus ring: a saturated colour no screen background uses, visible on all of them.
    static let focus = RGBColor(hex: 0xFA_CC_15)
    static let button = RGBColor(hex: 0x25_63_EB)
    static let card = RGBColor(hex: 0xF8_FA_FC)
    static let cardText = RGBColor(hex: 0x0F_17_2A)
    static let black = RGBColor(hex: 0x00_00_00)

    /// "14:03:27" in local time.
    static func clock(_ seconds: Double) -> String {
        var time = time_t(seconds)
        var parts = tm()
        localtime_r(&time, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }
}
