import CXKBCommon
import Glibc
import Logging

/// The xkbcommon side of a keyboard: the compositor's keymap, the modifier state, and Compose, turning xkb keycodes
/// into keysyms and text. No Wayland here, so it tests without a compositor.
///
/// Ownership: owns, in order of creation, an `xkb_context`, a Compose table and its state (when the locale has one),
/// and the current `xkb_keymap` and `xkb_state` (replaced on every new keymap). ``destroy()`` (also run by `deinit`)
/// unreferences them in reverse order.
final class KeyTranslator {
    /// Where Compose sequences come from.
    enum ComposeSource {
        /// The locale's Compose file (`/usr/share/X11/locale/<locale>/Compose`, or `~/.XCompose`, `$XCOMPOSEFILE`).
        case locale(String)
        /// A Compose file's text (tests).
        case buffer(String, locale: String)
        case none
    }

    /// The translation of one pressed key.
    struct Translation: Equatable {
        var keysym: UInt32
        var text: String
        /// The keymap says the key repeats, and it was not part of a Compose sequence.
        var repeats: Bool
    }

    private var context: OpaquePointer?
    private var composeTable: OpaquePointer?
    private var composeState: OpaquePointer?
    private(set) var keymap: OpaquePointer?
    private(set) var state: OpaquePointer?
    /// Modifier indices in the current keymap, `XKB_MOD_INVALID` when it lacks one.
    private var modifierIndices: [(KeyModifiers, xkb_mod_index_t)] = []
    private let logger = Logger(label: "multiscreen.wayland")

    init(compose: ComposeSource) {
        context = xkb_context_new(XKB_CONTEXT_NO_FLAGS)
        guard let context else {
            logger.error("xkb_context_new failed: no keyboard input")
            return
        }
        switch compose {
        case .locale(let locale):
            composeTable = xkb_compose_table_new_from_locale(context, locale, XKB_COMPOSE_COMPILE_NO_FLAGS)
            if composeTable == nil { logger.info("no Compose table for locale \(locale): dead keys will not compose") }
        case .buffer(let text, let locale):
            var bytes = Array(text.utf8)
            composeTable = bytes.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) {
                    xkb_compose_table_new_from_buffer(
                        context, $0.baseAddress, $0.count, locale, XKB_COMPOSE_FORMAT_TEXT_V1,
                        XKB_COMPOSE_COMPILE_NO_FLAGS)
                }
            }
        case .none:
            break
        }
        if let composeTable { composeState = xkb_compose_state_new(composeTable, XKB_COMPOSE_STATE_NO_FLAGS) }
    }

    deinit { destroy() }

    /// The locale whose Compose table applies, as setlocale(3) would pick it for `LC_CTYPE`: `LC_ALL`, then
    /// `LC_CTYPE`, then `LANG`, the first that is set and not empty; "C" otherwise.
    static func environmentLocale() -> String {
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            if let value = getenv(name), value.pointee != 0 { return String(cString: value) }
        }
        return "C"
    }

    var hasCompose: Bool { composeState != nil }

    /// Compiles a keymap in `XKB_KEYMAP_FORMAT_TEXT_V1` and starts a fresh state for it.
    /// - Returns: false (keeping the previous keymap) when it does not compile.
    @discardableResult
    func setKeymap(_ text: UnsafeBufferPointer<CChar>) -> Bool {
        // The compositor's string is NUL-terminated and `size` counts the NUL; stop at the first one.
        let length = text.firstIndex(of: 0) ?? text.count
        guard
            let newKeymap = xkb_keymap_new_from_buffer(
                context, text.baseAddress, length, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS)
        else {
            logger.error("the compositor's keymap does not compile")
            return false
        }
        guard let newState = xkb_state_new(newKeymap) else {
            xkb_keymap_unref(newKeymap)
            return false
        }
        releaseKeymap()
        keymap = newKeymap
        state = newState
        let names: [(KeyModifiers, String)] = [(.ctrl, "Control"), (.shift, "Shift"), (.alt, "Mod1"), (.logo, "Mod4")]
        modifierIndices = names.map { ($0.0, xkb_keymap_mod_get_index(newKeymap, $0.1)) }
        return true
    }

    /// `wl_keyboard.modifiers`: the compositor's serialized modifier state.
    func updateModifiers(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) {
        guard let state else { return }
        xkb_state_update_mask(state, depressed, latched, locked, 0, 0, group)
    }

    /// The effective modifiers now.
    var modifiers: KeyModifiers {
        guard let state else { return [] }
        var result: KeyModifiers = []
        for (modifier, index) in modifierIndices where index != XKB_MOD_INVALID {
            if xkb_state_mod_index_is_active(state, index, XKB_STATE_MODS_EFFECTIVE) > 0 { result.insert(modifier) }
        }
        return result
    }

    /// Translates a pressed key, running it through Compose first.
    /// - Returns: nil when Compose swallowed the key: a sequence is in progress (a dead key, `Multi_key`, …) or the
    ///   key cancelled one.
    func press(_ keycode: UInt32) -> Translation? {
        guard let state, let keymap else { return nil }
        let keysym = xkb_state_key_get_one_sym(state, keycode)
        if let composeState, xkb_compose_state_feed(composeState, keysym) == XKB_COMPOSE_FEED_ACCEPTED {
            switch xkb_compose_state_get_status(composeState) {
            case XKB_COMPOSE_COMPOSING:
                return nil
            case XKB_COMPOSE_COMPOSED:
                let text = utf8 { xkb_compose_state_get_utf8(composeState, $0, $1) }
                let composed = xkb_compose_state_get_one_sym(composeState)
                xkb_compose_state_reset(composeState)
                return Translation(keysym: composed, text: printable(text), repeats: false)
            case XKB_COMPOSE_CANCELLED:
                // xkbcommon-compose.h, "Cancellation Behavior": we swallow the cancelling keysym, "the approach
                // taken by libX11", so `<dead_acute> <b>` types nothing rather than a surprise "b".
                xkb_compose_state_reset(composeState)
                return nil
            default:
                break
            }
        }
        return Translation(
            keysym: keysym, text: text(of: keycode), repeats: xkb_keymap_key_repeats(keymap, keycode) != 0)
    }

    /// Translates one repetition of a held key with the current modifiers; Compose is not involved.
    func translateRepeat(_ keycode: UInt32) -> Translation? {
        guard let state else { return nil }
        return Translation(keysym: xkb_state_key_get_one_sym(state, keycode), text: text(of: keycode), repeats: true)
    }

    /// Forgets a half-typed Compose sequence (focus moved elsewhere).
    func resetCompose() {
        if let composeState { xkb_compose_state_reset(composeState) }
    }

    /// Unreferences everything in reverse order of creation. Safe to call twice.
    func destroy() {
        releaseKeymap()
        if let p = composeState { xkb_compose_state_unref(p) }
        if let p = composeTable { xkb_compose_table_unref(p) }
        if let p = context { xkb_context_unref(p) }
        (composeState, composeTable, context) = (nil, nil, nil)
    }

    private func releaseKeymap() {
        if let p = state { xkb_state_unref(p) }
        if let p = keymap { xkb_keymap_unref(p) }
        (state, keymap) = (nil, nil)
    }

    private func text(of keycode: UInt32) -> String {
        guard let state else { return "" }
        return printable(utf8 { xkb_state_key_get_utf8(state, keycode, $0, $1) })
    }
}

/// Calls an xkbcommon `…_get_utf8(buffer, size)` function, which returns the length it needs (like snprintf).
private func utf8(_ get: (UnsafeMutablePointer<CChar>?, Int) -> Int32) -> String {
    let length = Int(get(nil, 0))
    guard length > 0 else { return "" }
    return String(unsafeUninitializedCapacity: length + 1) { buffer in
        buffer.withMemoryRebound(to: CChar.self) { _ = get($0.baseAddress, length + 1) }
        return length
    }
}

/// Text that prints: control characters (Return's "\r", Tab, BackSpace, Escape, Delete, and the C0 codes xkbcommon's
/// Control transformation makes of Ctrl+letter) become "", since the application acts on their keysyms.
private func printable(_ text: String) -> String {
    text.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .control }) ? "" : text
}
