/// A key as the controller UI understands it, translated from an xkb keysym by the display thread.
public enum PanelKey: Equatable, Sendable {
    /// Printable text (already composed: dead keys and Compose sequences resolved, any Unicode).
    case text(String)
    case backspace
    case delete
    case left
    case right
    case home
    case end
    case up
    case down
    case tab
    case backTab
    case enter
    case escape

    /// Maps an xkb keysym (xkbcommon-keysyms.h) and its text to a panel key; nil for keys the panel ignores.
    public init?(keysym: UInt32, text: String, shift: Bool) {
        switch keysym {
        case 0xff09: self = shift ? .backTab : .tab  // XKB_KEY_Tab
        case 0xfe20: self = .backTab  // XKB_KEY_ISO_Left_Tab (Shift+Tab on most layouts)
        case 0xff0d, 0xff8d: self = .enter  // XKB_KEY_Return, XKB_KEY_KP_Enter
        case 0xff08: self = .backspace
        case 0xffff: self = .delete
        case 0xff51: self = .left
        case 0xff52: self = .up
        case 0xff53: self = .right
        case 0xff54: self = .down
        case 0xff50: self = .home
        case 0xff57: self = .end
        case 0xff1b: self = .escape
        default:
            guard !text.isEmpty, text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7f }) else {
                return nil
            }
            self = .text(text)
        }
    }
}
