import CWaylandClient
import Glibc
import Logging
import SystemCalls

/// Owns one `wl_keyboard`: the compositor's keymap, focus, and key presses translated into ``KeyEvent`` values.
///
/// Created by ``Seat`` when the seat gains the keyboard capability and released when it loses it. Translation
/// (keymap, modifiers, Compose) is ``KeyTranslator``'s; repetition is the seat's ``KeyRepeater``'s, which this
/// keyboard drives while it exists.
public final class Keyboard {
    public private(set) var proxy: OpaquePointer?
    public let version: UInt32
    /// The `wl_surface` with keyboard focus (between `enter` and `leave`).
    public private(set) var focus: SurfaceID?
    public var onKey: (KeyEvent) -> Void = { _ in }
    /// Keyboard focus moved to a surface (non-nil) or away from all of ours (nil).
    public var onFocus: (SurfaceID?) -> Void = { _ in }

    let translator: KeyTranslator
    private let repeater: KeyRepeater
    /// Keys down at this keyboard's first `enter` are its first presses: it appeared while we ran and the enter
    /// came soon after (``firstKeysWindow``). Cleared at the first enter.
    private var firstEnterKeysArePresses: Bool
    private let createdAt = MonotonicClock.nanoseconds()
    /// How soon after the keyboard appeared its first `enter` must come for the keys in it to be typed: later, they
    /// belong to a focus change, not to the device's arrival.
    static let firstKeysWindow: UInt64 = 1_000_000_000
    private let logger = Logger(label: "multiscreen.wayland")

    /// Takes ownership of `proxy`, a `wl_keyboard` of `version`.
    /// - Parameter composeLocale: The locale whose Compose table applies (``Seat/composeLocale``).
    /// - Parameter appearedWhileRunning: the seat gained this keyboard after we bound it (see ``Seat``).
    public init(
        proxy: OpaquePointer, version: UInt32, repeater: KeyRepeater, composeLocale: String,
        appearedWhileRunning: Bool = false
    ) {
        self.proxy = proxy
        firstEnterKeysArePresses = appearedWhileRunning
        self.version = version
        self.repeater = repeater
        translator = KeyTranslator(compose: .locale(composeLocale))
        repeater.onRepeat = { [unowned self] key in self.repeatKey(key) }
        wl_keyboard_add_listener(proxy, keyboardListener, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { destroy() }

    /// Stops repetition, releases the keyboard (`wl_keyboard.release`, v3+), then the xkb objects. Safe to call twice.
    public func destroy() {
        guard let proxy else { return }
        repeater.stop()
        repeater.onRepeat = { _ in }
        if version >= 3 { wl_keyboard_release(proxy) } else { wl_keyboard_destroy(proxy) }
        self.proxy = nil
        focus = nil
        translator.destroy()
    }

    fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> Keyboard {
        Unmanaged<Keyboard>.fromOpaque(data!).takeUnretainedValue()
    }

    fileprivate func keymap(format: UInt32, fd: Int32, size: UInt32) {
        // The fd arrived through SCM_RIGHTS: it is ours to close whatever happens to the keymap.
        defer { close(fd) }
        guard format == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue else {
            logger.error("keymap format \(format) is not xkb_v1: no text input")
            return
        }
        // wayland.xml, wl_keyboard.keymap: "From version 7 onwards, the fd must be mapped with MAP_PRIVATE by the
        // recipient, as MAP_SHARED may fail." MAP_PRIVATE works for every version.
        guard let map = mmap(nil, Int(size), PROT_READ, MAP_PRIVATE, fd, 0), map != MAP_FAILED else {
            logger.error("cannot map the keymap: \(String(cString: strerror(errno)))")
            return
        }
        defer { munmap(map, Int(size)) }
        translator.setKeymap(UnsafeBufferPointer(start: map.assumingMemoryBound(to: CChar.self), count: Int(size)))
    }

    fileprivate func enter(surface: OpaquePointer?, keys: UnsafeMutablePointer<wl_array>?) {
        focus = SurfaceID(surface)
        onFocus(focus)
        // Keys already down at an enter typed into the previous focus: they are not pressed now. But a keyboard (or
        // barcode scanner) that appeared while we ran, with a key down, made the seat gain the keyboard capability,
        // and that key was pressed before this `wl_keyboard` existed: the compositor reports it in the first enter
        // and nowhere else, so there it is typed.
        let typesHeldKeys =
            firstEnterKeysArePresses && MonotonicClock.nanoseconds() &- createdAt < Self.firstKeysWindow
        firstEnterKeysArePresses = false
        guard typesHeldKeys, let keys, keys.pointee.size > 0, let data = keys.pointee.data else { return }
        let pressed = UInt32(WL_KEYBOARD_KEY_STATE_PRESSED.rawValue)
        let count = keys.pointee.size / MemoryLayout<UInt32>.size
        for index in 0..<count { key(data.load(fromByteOffset: index * 4, as: UInt32.self), state: pressed) }
    }

    fileprivate func leave() {
        // wayland.xml, wl_keyboard.leave: "After this event client must assume that all keys, including modifiers,
        // are lifted and also it must stop key repeating". A half-typed Compose sequence must not finish elsewhere.
        repeater.stop()
        translator.resetCompose()
        focus = nil
        onFocus(nil)
    }

    fileprivate func key(_ key: UInt32, state: UInt32) {
        // xkbcommon keycodes are evdev codes + 8 (the X11 offset the xkb_v1 keymap format keeps).
        let keycode = key + 8
        guard state == WL_KEYBOARD_KEY_STATE_PRESSED.rawValue else {
            if repeater.key == keycode { repeater.stop() }
            return
        }
        guard let translation = translator.press(keycode) else {
            // Compose consumed the key; a key held before it must not keep typing through the sequence.
            repeater.stop()
            return
        }
        if translation.repeats { repeater.start(key: keycode) } else { repeater.stop() }
        emit(translation, isRepeat: false)
    }

    fileprivate func modifiers(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) {
        translator.updateModifiers(depressed: depressed, latched: latched, locked: locked, group: group)
    }

    fileprivate func repeatInfo(rate: Int32, delay: Int32) {
        repeater.configure(rate: rate, delay: delay)
    }

    private func repeatKey(_ keycode: UInt32) {
        guard let translation = translator.translateRepeat(keycode) else { return }
        emit(translation, isRepeat: true)
    }

    private func emit(_ translation: KeyTranslator.Translation, isRepeat: Bool) {
        onKey(
            KeyEvent(
                keysym: translation.keysym, text: translation.text, modifiers: translator.modifiers,
                isRepeat: isRepeat, surface: focus))
    }
}

private nonisolated(unsafe) let keyboardListener: UnsafeMutablePointer<wl_keyboard_listener> = {
    let listener = UnsafeMutablePointer<wl_keyboard_listener>.allocate(capacity: 1)
    listener.initialize(
        to: wl_keyboard_listener(
            keymap: { data, _, format, fd, size in Keyboard.from(data).keymap(format: format, fd: fd, size: size) },
            enter: { data, _, _, surface, keys in Keyboard.from(data).enter(surface: surface, keys: keys) },
            leave: { data, _, _, _ in Keyboard.from(data).leave() },
            key: { data, _, _, _, key, state in Keyboard.from(data).key(key, state: state) },
            modifiers: { data, _, _, depressed, latched, locked, group in
                Keyboard.from(data).modifiers(depressed: depressed, latched: latched, locked: locked, group: group)
            },
            // v4: the compositor's repeat rate and delay, sent after the keymap and again whenever they change.
            repeat_info: { data, _, rate, delay in Keyboard.from(data).repeatInfo(rate: rate, delay: delay) }))
    return listener
}()
