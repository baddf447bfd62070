import CVirtualPointer
import CWaylandClient
import CWaylandProtocols
import CXKBCommon
import CompositorHarness
import Foundation
import Testing

@testable import Wayland

/// The test process as a Wayland client of a private headless sway: one mapped fullscreen window and the seat, with
/// every input event recorded.
///
/// Ownership: the client holds its sway, so the compositor is stopped only after `deinit` has destroyed the client's
/// objects and disconnected, whatever order the test's locals go in.
private final class InputClient {
    let sway: HeadlessSway
    let display: WaylandDisplay
    let registry: Registry
    let globals = WaylandGlobals()
    var seat: Seat?
    var virtualPointerManager: OpaquePointer?
    var window: ToplevelWindow!
    var buffer: ShmBuffer?
    var size: (width: Int32, height: Int32) = (0, 0)
    var keys: [KeyEvent] = []
    var pointerEvents: [PointerEvent] = []
    var cursorQuestions: [SurfaceID?] = []
    var keyboardFocus: SurfaceID?
    /// A `wtype` that only sleeps, keeping a virtual keyboard (and so the seat's keyboard capability) alive.
    private var keyboardHolder: ChildProcess?
    /// The pointer device of ``addPointerDevice()``, destroyed with the client.
    var pointerDevice: VirtualPointerDevice?

    init(_ sway: HeadlessSway, composeLocale: String = "en_US.UTF-8") throws {
        self.sway = sway
        display = try WaylandDisplay(name: sway.waylandSocketPath)
        registry = Registry(display: display)
        registry.onGlobal = { [unowned self] name, interface, _ in
            if globals.bindIfSingleton(registry, name: name, interface: interface) { return }
            switch interface {
            case "wl_seat" where self.seat == nil:
                self.seat = Seat(registry: registry, name: name)
            case "zwlr_virtual_pointer_manager_v1":
                virtualPointerManager = registry.bind(name, interface: cvp_manager_interface(), supported: 2)?.proxy
            default:
                break
            }
        }
        try display.roundtrip()
        try globals.checkRequired()
        let seat = try #require(self.seat)
        seat.composeLocale = composeLocale
        seat.onKey = { [unowned self] in keys.append($0) }
        seat.onKeyboardFocus = { [unowned self] in keyboardFocus = $0 }
        seat.onPointer = { [unowned self] in pointerEvents.append($0) }

        // A fullscreen window on the only output, mapped with a buffer of the configured size.
        window = ToplevelWindow(globals: globals, fullscreenOn: nil, appID: "seat-test", title: "seat-test")
        window.onConfigure = { [unowned self] width, height, serial in
            window.acknowledge(serial: serial)
            let w = width > 0 ? width : 320
            let h = height > 0 ? height : 240
            if buffer == nil || (w, h) != size, let shm = globals.shm {
                size = (w, h)
                buffer = ShmBuffer(shm: shm, width: w, height: h)
                wl_surface_attach(window.surface, buffer?.buffer, 0, 0)
                wl_surface_damage_buffer(window.surface, 0, 0, w, h)
            }
            window.commit()
        }
        try pump("the window to be mapped") { buffer != nil }
        // One more roundtrip: the commit with the buffer reaches sway, which maps and focuses the window.
        try display.roundtrip()
    }

    deinit {
        keyboardHolder?.kill()
        pointerDevice?.destroy()
        if let p = virtualPointerManager { cvp_manager_destroy(p) }
        seat?.destroy()
        window.destroy()
        buffer = nil
        globals.destroy()
        registry.destroy()
        display.disconnect()
    }

    /// Dispatches events (and key repeats) until `condition` holds, waiting in `poll` on the Wayland socket and the
    /// seat's repeat timer. Throws after `timeout` seconds.
    func pump(_ what: String, timeout: Double = 10, until condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            try display.dispatchPending()
            if condition() { return }
            guard Date() < deadline else {
                throw HarnessError("timed out waiting for \(what); keys \(keys), pointer \(pointerEvents)")
            }
            while !display.prepareRead() { try display.dispatchPending() }
            _ = try display.flush()
            let repeater = seat?.keyRepeater.fileDescriptor ?? -1
            var fds = [
                pollfd(fd: display.fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: repeater, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, 50)
            if ready > 0, fds[0].revents != 0 { try display.readEvents() } else { display.cancelRead() }
            if ready > 0, fds[1].revents != 0 { seat?.keyRepeater.handleTimer() }
        }
    }

    /// Makes sure the seat has a keyboard with focus on our window before a `wtype` types.
    ///
    /// The seat gains the keyboard capability only when a virtual keyboard appears, and sway delivers keys to the
    /// `wl_keyboard` objects that exist when they are sent: a lone `wtype` types its first keys before our
    /// `wl_keyboard` (created on the capability event) reaches sway, and they are lost. A second, sleeping `wtype`
    /// keeps the capability, so the typing one's keys all arrive.
    func holdKeyboard() throws {
        guard keyboardHolder == nil else { return }
        keyboardHolder = try ChildProcess("wtype", ["-s", "120000"], environment: sway.environment)
        try pump("a keyboard focused on the window") {
            seat?.keyboard != nil && keyboardFocus != nil && keyboardFocus == window.id
        }
    }

    /// Runs `wtype` with `arguments` against our sway, dispatching our events while it runs, and waits for it to exit.
    func wtype(_ arguments: String..., until condition: () -> Bool) throws {
        try holdKeyboard()
        let process = try ChildProcess("wtype", arguments, environment: sway.environment)
        defer { process.kill() }
        try pump("wtype \(arguments.joined(separator: " ")) to arrive", until: condition)
        try pump("wtype to exit") { !process.isRunning }
        #expect(process.exitStatus == 0, "wtype failed: \(process.output)")
    }

    /// Creates a virtual pointer device on our seat, driven by the test through the returned object, and waits for
    /// the pointer capability it brings and our `wl_pointer`. The device lives until the client is destroyed (or the
    /// test destroys it); everything the test sends through it reaches sway after our `wl_pointer`'s creation, so
    /// sway delivers the resulting events to it.
    @discardableResult
    func addPointerDevice() throws -> VirtualPointerDevice {
        let manager = try #require(virtualPointerManager, "sway 1.7 offers zwlr_virtual_pointer_manager_v1")
        let seat = try #require(seat)
        let device = try VirtualPointerDevice(manager: manager, seat: seat)
        pointerDevice = device
        try pump("the pointer capability") { seat.pointer != nil }
        return device
    }

    /// Dispatches until a pointer event matching `matches` arrives.
    func pumpPointer(_ what: String, timeout: Double = 10, until matches: (PointerEvent) -> Bool) throws {
        try pump(what, timeout: timeout) { pointerEvents.contains(where: matches) }
    }

    var text: String { keys.map(\.text).joined() }
}

/// A `zwlr_virtual_pointer_v1` on the test client's own connection (the hand-written client in `CVirtualPointer`):
/// a pointer device of sway's seat that exists as long as the test holds it. Requests are sent on the next flush,
/// which ``InputClient/pump(_:timeout:until:)`` does.
private final class VirtualPointerDevice {
    private var proxy: OpaquePointer?
    /// Event timestamps in milliseconds, increasing.
    private var time: UInt32 = 0

    init(manager: OpaquePointer, seat: Seat) throws {
        guard let created = cvp_manager_create_virtual_pointer(manager, seat.proxy) else {
            throw HarnessError("zwlr_virtual_pointer_manager_v1.create_virtual_pointer returned no proxy")
        }
        proxy = created
    }

    deinit { destroy() }

    private func nextTime() -> UInt32 {
        time += 1
        return time
    }

    /// Moves to (x, y) out of an `extent` area that spans the output layout, as one frame.
    func move(x: UInt32, y: UInt32, extent: (width: UInt32, height: UInt32)) {
        guard let proxy else { return }
        cvp_pointer_motion_absolute(proxy, nextTime(), x, y, extent.width, extent.height)
        cvp_pointer_frame(proxy)
    }

    /// Presses (or releases) `button` (``PointerButton``), as one frame.
    func button(_ button: UInt32, pressed: Bool) {
        guard let proxy else { return }
        let state = pressed ? WL_POINTER_BUTTON_STATE_PRESSED : WL_POINTER_BUTTON_STATE_RELEASED
        cvp_pointer_button(proxy, nextTime(), button, state.rawValue)
        cvp_pointer_frame(proxy)
    }

    /// Scrolls `value` on `axis` (vertical by default), as one frame: `detents` clicks of a wheel (`axis_source`
    /// wheel and `axis_discrete`), or a plain `axis` event without detents when `detents` is nil.
    func scroll(_ value: Double, detents: Int32?, axis: wl_pointer_axis = WL_POINTER_AXIS_VERTICAL_SCROLL) {
        guard let proxy else { return }
        if let detents {
            cvp_pointer_axis_source(proxy, WL_POINTER_AXIS_SOURCE_WHEEL.rawValue)
            cvp_pointer_axis_discrete(proxy, nextTime(), axis.rawValue, value, detents)
        } else {
            cvp_pointer_axis(proxy, nextTime(), axis.rawValue, value)
        }
        cvp_pointer_frame(proxy)
    }

    /// Removes the device from the seat.
    func destroy() {
        guard let proxy else { return }
        cvp_pointer_destroy(proxy)
        self.proxy = nil
    }
}

/// Keyboard, pointer and cursor through a real compositor: the test process is the client, `wtype` (virtual
/// keyboard) and our own `zwlr_virtual_pointer_v1` (``VirtualPointerDevice``) are the devices.
///
/// The pointer device is created by the test process on its own connection and lives as long as the test wants.
/// A device from another process that comes and goes within one flush (Debian's `virtual-pointer` example) is of no
/// use: sway handles all of it before our `wl_pointer`, created on the capabilities event the device causes,
/// reaches it, so no pointer event is ever delivered to us.
@Suite(.serialized) struct SeatTests {
    @Test func typedUnicodeArrivesAsTextAndKeysymsOnTheFocusedSurface() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let client = try InputClient(sway)
        let seat = try #require(client.seat)
        #expect(seat.version == Seat.supportedVersion, "sway 1.7 offers wl_seat v7 or more")

        let typed = "héllo 안녕"
        try client.wtype(typed) { client.keys.count >= typed.count }
        #expect(client.text == typed)
        #expect(client.keys.map(\.keysym) == [0x68, 0xe9, 0x6c, 0x6c, 0x6f, 0x20, 0x100_c548, 0x100_b155])
        #expect(client.keys.allSatisfy { $0.surface == client.window.id && !$0.isRepeat && $0.modifiers == [] })
        #expect(client.keyboardFocus == client.window.id)
        // The sleeping wtype of holdKeyboard() keeps the seat's keyboard capability: the keyboard must still be there,
        // focused on our surface (a keyboard that vanished would pass no focus test).
        let keyboard = try #require(seat.keyboard, "the seat lost its keyboard while a virtual keyboard exists")
        #expect(keyboard.focus == client.window.id)
    }

    /// A keyboard that appears with a key already down (a barcode scanner plugged in mid-scan, a virtual keyboard
    /// that presses at once): the seat gains the keyboard capability, our `wl_keyboard` is made after the press,
    /// and the key reaches us only in the first `enter`'s keys. It is typed, not lost.
    @Test func theFirstKeyOfANewKeyboardIsKept() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let client = try InputClient(sway)
        #expect(client.seat?.keyboard == nil, "no keyboard on the seat before wtype")
        let process = try ChildProcess("wtype", ["-P", "x", "-s", "700", "-p", "x"], environment: sway.environment)
        defer { process.kill() }
        try client.pump("the held key") { !client.keys.isEmpty }
        #expect(client.keys.first?.text == "x" && client.keys.first?.isRepeat == false, "\(client.keys)")
        #expect(client.keys.first?.surface == client.window.id)
    }

    @Test func namedKeysAndShortcutsCarryKeysymsModifiersAndNoText() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let client = try InputClient(sway)

        try client.wtype("-k", "Return", "-k", "Tab", "-k", "BackSpace") { client.keys.count >= 3 }
        #expect(client.keys.map(\.keysym) == [0xff0d, 0xff09, 0xff08])  // XKB_KEY_Return, _Tab, _BackSpace
        #expect(client.keys.allSatisfy { $0.text.isEmpty })

        client.keys = []
        try client.wtype("-M", "ctrl", "a", "-m", "ctrl", "-M", "shift", "b", "-m", "shift") {
            client.keys.count >= 2
        }
        let shortcut = try #require(client.keys.first { $0.keysym == 0x61 })  // XKB_KEY_a
        #expect(shortcut.modifiers == .ctrl)
        #expect(shortcut.text == "", "Ctrl+A is a shortcut, not the control character U+0001")
        // wtype's keymap gives every key a single level, so Shift changes no keysym there (the US keymap test below
        // covers levels); the modifier is still reported.
        let shifted = try #require(client.keys.first { $0.keysym == 0x62 })  // XKB_KEY_b
        #expect(shifted.modifiers == .shift)
        #expect(shifted.text == "b")
    }

    @Test func deadKeysAndComposeSequencesProduceTheirCharacter() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let client = try InputClient(sway, composeLocale: "en_US.UTF-8")
        #expect(try #require(client.seat).composeLocale == "en_US.UTF-8")

        // en_US.UTF-8/Compose: <dead_acute> <e> : "é" eacute; <Multi_key> <o> <c> : "©" copyright.
        try client.wtype("-k", "dead_acute", "-k", "e", "-k", "Multi_key", "-k", "o", "-k", "c", "-k", "x") {
            client.keys.count >= 3
        }
        #expect(client.text == "é©x")
        #expect(client.keys.map(\.keysym) == [0xe9, 0xa9, 0x78])
        #expect(client.keys.allSatisfy { !$0.isRepeat })
    }

    @Test func aHeldKeyRepeatsAtTheCompositorsRateUntilReleased() throws {
        // The compositor's repeat settings, which reach us in wl_keyboard.repeat_info.
        let sway = try HeadlessSway(
            outputs: 1, width: 320, height: 240,
            extraConfig: "input type:keyboard {\n    repeat_delay 150\n    repeat_rate 40\n}")
        let client = try InputClient(sway)
        let repeater = try #require(client.seat).keyRepeater

        try client.holdKeyboard()
        let process = try ChildProcess("wtype", ["-P", "a", "-s", "700", "-p", "a"], environment: sway.environment)
        defer { process.kill() }
        try client.pump("the press") { !client.keys.isEmpty }
        let pressed = Date()
        #expect((repeater.rate, repeater.delay) == (40, 150))
        #expect(repeater.key != nil, "repeating the pressed key (wtype's keymap picks its keycode)")
        let armed = repeater.timerSetting
        #expect(armed.interval == 25_000_000, "1 s / 40")
        #expect(armed.next > 0 && armed.next <= 150_000_000)

        try client.pump("repeats") { client.keys.count >= 4 }
        #expect(Date().timeIntervalSince(pressed) >= 0.14, "first repeat after the delay")
        #expect(client.keys.dropFirst().allSatisfy { $0.isRepeat && $0.keysym == 0x61 && $0.text == "a" })

        try client.pump("the release", timeout: 5) { repeater.key == nil }
        #expect(repeater.timerSetting == (0, 0), "disarmed on release")
        let count = client.keys.count
        try client.pump("wtype to exit") { !process.isRunning }
        #expect(client.keys.count == count, "no repeat after the release")
        #expect(count < 2 + Int(0.7 * 40) + 2, "at most rate × held time repeats")
    }

    @Test func theSeatFollowsAVirtualPointerDeviceThatComesAndGoes() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let client = try InputClient(sway)
        let seat = try #require(client.seat)
        #expect(seat.pointer == nil, "a headless sway has no pointer device of its own")

        let device = try client.addPointerDevice()
        #expect(seat.capabilities.contains(.pointer))
        device.destroy()
        try client.pump("the device to be gone") { seat.pointer == nil && !seat.capabilities.contains(.pointer) }
        try client.display.roundtrip()  // releasing the wl_pointer caused no protocol error
        #expect(seat.pointer == nil)
    }

    @Test func aVirtualPointerClickIsAPressAtTheSurfaceLocalPositionWithTheCursorHidden() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let client = try InputClient(sway)
        let seat = try #require(client.seat)
        seat.hidesCursor = { [unowned client] surface in
            client.cursorQuestions.append(surface)
            return surface == client.window.id
        }
        let device = try client.addPointerDevice()
        let surface = client.window.id

        // Absolute positions span the output layout: one 320×240 output at 0,0.
        device.move(x: 100, y: 50, extent: (320, 240))
        device.button(PointerButton.left, pressed: true)
        device.button(PointerButton.left, pressed: false)
        try client.pumpPointer("the click") { if case .release = $0 { true } else { false } }

        #expect(client.pointerEvents.contains(.press(button: PointerButton.left, surface: surface, x: 100, y: 50)))
        #expect(client.pointerEvents.contains(.release(button: PointerButton.left, surface: surface, x: 100, y: 50)))
        #expect(client.cursorQuestions == [surface], "asked once, at enter")
        #expect(seat.pointer?.isCursorHidden == true)
        #expect(seat.pointer?.focus == surface)

        // Scrolling one wheel detent down arrives as one scroll event per frame.
        device.scroll(15, detents: 1)
        try client.pumpPointer("the scroll") { if case .scroll = $0 { true } else { false } }
        #expect(client.pointerEvents.last == .scroll(surface: surface, dx: 0, dy: 15, discreteX: 0, discreteY: 1))

        // Scrolling right without detents.
        client.pointerEvents = []
        device.scroll(7.5, detents: nil, axis: WL_POINTER_AXIS_HORIZONTAL_SCROLL)
        try client.pumpPointer("the smooth scroll") { if case .scroll = $0 { true } else { false } }
        #expect(client.pointerEvents == [.scroll(surface: surface, dx: 7.5, dy: 0, discreteX: 0, discreteY: 0)])
    }

    @Test func theCursorStaysOnSurfacesThePredicateKeeps() throws {
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 240)
        let client = try InputClient(sway)
        let seat = try #require(client.seat)
        seat.hidesCursor = { _ in false }
        let device = try client.addPointerDevice()
        device.move(x: 10, y: 20, extent: (320, 240))
        try client.pump("the motion") {
            client.pointerEvents.last == .motion(surface: client.window.id, x: 10, y: 20)
        }
        #expect(seat.pointer?.focus == client.window.id)
        #expect(seat.pointer?.isCursorHidden == false)

        // The screen under the pointer becomes external: the cursor goes without waiting for the next enter.
        seat.hidesCursor = { [unowned client] in $0 == client.window.id }
        seat.refreshCursor()
        #expect(seat.pointer?.isCursorHidden == true)
        try client.display.roundtrip()  // sway accepted set_cursor with the enter's serial: no protocol error
    }
}

/// The repeat timer and the xkb translation on their own, without a compositor.
@Suite struct KeyTranslationTests {
    /// The text of a US keymap, as a compositor would send it.
    private func usKeymap() throws -> [CChar] {
        let context = try #require(xkb_context_new(XKB_CONTEXT_NO_FLAGS))
        defer { xkb_context_unref(context) }
        let keymap = try #require(
            "us".withCString { layout in
                var names = xkb_rule_names(rules: nil, model: nil, layout: layout, variant: nil, options: nil)
                return xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
            })
        defer { xkb_keymap_unref(keymap) }
        let text = try #require(xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1))
        defer { free(text) }
        return Array(UnsafeBufferPointer(start: text, count: strlen(text) + 1))
    }

    // evdev codes + 8.
    private let keyA: UInt32 = 30 + 8
    private let keyB: UInt32 = 48 + 8
    private let keyC: UInt32 = 46 + 8
    private let leftShift: UInt32 = 42 + 8

    @Test func aComposeTableFromABufferComposesAndSwallowsCancellingKeys() throws {
        let translator = KeyTranslator(compose: .buffer("<a> <b> : \"✓\" checkmark\n", locale: "C"))
        #expect(translator.hasCompose)
        let keymap = try usKeymap()
        #expect(keymap.withUnsafeBufferPointer { translator.setKeymap($0) })

        #expect(translator.press(keyA) == nil, "a starts a sequence")
        #expect(translator.press(keyB) == .init(keysym: 0xaf3, text: "✓", repeats: false))  // XKB_KEY_checkmark
        #expect(translator.press(keyA) == nil)
        #expect(translator.press(keyC) == nil, "c cancels the sequence and is swallowed, like libX11")
        #expect(translator.press(keyC) == .init(keysym: 0x63, text: "c", repeats: true))
        #expect(translator.press(keyA) == nil)
        translator.resetCompose()
        #expect(translator.press(keyB) == .init(keysym: 0x62, text: "b", repeats: true), "reset forgot the a")
    }

    @Test func modifiersComeFromTheSerializedStateAndModifierKeysDoNotRepeat() throws {
        let translator = KeyTranslator(compose: .none)
        let keymap = try usKeymap()
        #expect(keymap.withUnsafeBufferPointer { translator.setKeymap($0) })
        #expect(translator.press(leftShift) == .init(keysym: 0xffe1, text: "", repeats: false))
        // Shift is modifier bit 0 (index of "Shift" in every xkb keymap), Control bit 2.
        translator.updateModifiers(depressed: 1 << 0, latched: 0, locked: 0, group: 0)
        #expect(translator.modifiers == .shift)
        #expect(translator.press(keyA) == .init(keysym: 0x41, text: "A", repeats: true))
        translator.updateModifiers(depressed: 1 << 2, latched: 0, locked: 0, group: 0)
        #expect(translator.modifiers == .ctrl)
        #expect(translator.press(keyA)?.text == "")
    }

    @Test func aKeymapThatDoesNotCompileKeepsThePreviousOne() throws {
        let translator = KeyTranslator(compose: .none)
        let keymap = try usKeymap()
        #expect(keymap.withUnsafeBufferPointer { translator.setKeymap($0) })
        let garbage = Array("xkb_keymap { nonsense".utf8CString)
        #expect(!garbage.withUnsafeBufferPointer { translator.setKeymap($0) })
        #expect(translator.press(keyA)?.text == "a")
    }

    @Test func theRepeaterArmsWithDelayAndRateAndDisarmsOnStop() throws {
        let repeater = KeyRepeater(rate: 25, delay: 600)
        #expect(repeater.fileDescriptor >= 0)
        #expect(repeater.timerSetting == (0, 0))
        repeater.start(key: keyA)
        #expect(repeater.key == keyA)
        #expect(repeater.timerSetting.interval == 40_000_000)
        #expect(repeater.timerSetting.next > 500_000_000 && repeater.timerSetting.next <= 600_000_000)
        repeater.start(key: keyB)
        #expect(repeater.key == keyB, "a new press takes over")
        repeater.stop()
        #expect(repeater.key == nil)
        #expect(repeater.timerSetting == (0, 0))

        repeater.configure(rate: 0, delay: 300)
        repeater.start(key: keyA)
        #expect(repeater.key == nil, "rate 0 disables repeat")
        #expect(repeater.timerSetting == (0, 0))
    }

    @Test func dueRepetitionsAreDeliveredByHandleTimer() throws {
        let repeater = KeyRepeater(rate: 1000, delay: 0)
        var repeated: [UInt32] = []
        repeater.onRepeat = { repeated.append($0) }
        repeater.handleTimer()
        #expect(repeated.isEmpty, "nothing due: a spurious wakeup does nothing")
        repeater.start(key: keyC)
        var ready = pollfd(fd: repeater.fileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 1000) == 1)
        repeater.handleTimer()
        #expect(!repeated.isEmpty && repeated.count <= Int(KeyRepeater.maximumBurst))
        #expect(repeated.allSatisfy { $0 == keyC })
    }
}
