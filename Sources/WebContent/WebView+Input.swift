internal import CWebEngine

/// Input for the page: keys, pointer, scroll and touch, turned into WPE's events in device pixels.
extension WebView {
    /// A key press for the page (press and release: the seat reports presses and repeats). `keysym` is an
    /// xkbcommon keysym, which is what WPE's key codes are; a Compose result without a keysym goes as the key
    /// codes of its characters. `modifiers`: control 1, shift 2, alt 4, meta 8 (WPE's bits).
    public func key(keysym: UInt32, text: String, modifiers: UInt32) {
        guard let backend else { return }
        let codes = keysym != 0 ? [keysym] : text.unicodeScalars.map { wpe_unicode_to_key_code($0.value) }
        let time = UInt32(truncatingIfNeeded: Self.monotonicNanoseconds() / 1_000_000)
        for code in codes where code != 0 {
            var event = wpe_input_keyboard_event(
                time: time, key_code: code, hardware_key_code: 0, pressed: true, modifiers: modifiers)
            wpe_view_backend_dispatch_keyboard_event(backend, &event)
            event.pressed = false
            wpe_view_backend_dispatch_keyboard_event(backend, &event)
        }
    }

    /// The pointer moved to (x, y), in the screen's logical coordinates.
    public func pointerMotion(x: Double, y: Double) {
        guard let backend else { return }
        let (px, py) = devicePixels(x, y)
        var event = wpe_input_pointer_event(
            type: wpe_input_pointer_event_type_motion, time: Self.eventTime(), x: px, y: py, button: 0, state: 0,
            modifiers: buttonsHeld)
        wpe_view_backend_dispatch_pointer_event(backend, &event)
    }

    /// A pointer button (a Linux `BTN_*` code, as `wl_pointer.button` carries it) went down or up at (x, y), in
    /// the screen's logical coordinates. Buttons other than left, right and middle mean nothing to a page.
    public func pointerButton(_ code: UInt32, pressed: Bool, x: Double, y: Double) {
        guard let backend, let (button, bit) = Self.wpeButton(code) else { return }
        if pressed { buttonsHeld |= bit } else { buttonsHeld &= ~bit }
        let (px, py) = devicePixels(x, y)
        var event = wpe_input_pointer_event(
            type: wpe_input_pointer_event_type_button, time: Self.eventTime(), x: px, y: py, button: button,
            state: pressed ? 1 : 0, modifiers: buttonsHeld)
        wpe_view_backend_dispatch_pointer_event(backend, &event)
    }

    /// WPE's button numbers (WebKit reads 1 as left, 2 as right, 3 as middle) and `MouseEvent.buttons` bits for a
    /// Linux `BTN_*` code (`BTN_LEFT` 0x110, `BTN_RIGHT` 0x111, `BTN_MIDDLE` 0x112).
    static func wpeButton(_ code: UInt32) -> (button: UInt32, bit: UInt32)? {
        switch code {
        case 0x110: (1, wpe_input_pointer_modifier_button1.rawValue)
        case 0x111: (2, wpe_input_pointer_modifier_button2.rawValue)
        case 0x112: (3, wpe_input_pointer_modifier_button3.rawValue)
        default: nil
        }
    }

    /// Scrolling by (dx, dy) in logical units (positive: down / right, as Wayland counts it) with the pointer at
    /// (x, y). Sent as one smooth two-axis event; WebKit counts a wheel the other way round (positive: up / left)
    /// and divides the deltas by the scale like positions.
    public func scroll(dx: Double, dy: Double, x: Double, y: Double) {
        guard let backend, dx != 0 || dy != 0 else { return }
        let (px, py) = devicePixels(x, y)
        let type = wpe_input_axis_event_type(
            wpe_input_axis_event_type_mask_2d.rawValue | wpe_input_axis_event_type_motion_smooth.rawValue)
        var event = wpe_input_axis_2d_event(
            base: wpe_input_axis_event(
                type: type, time: Self.eventTime(), x: px, y: py, axis: 0, value: 0, modifiers: buttonsHeld),
            x_axis: -dx * Double(scale), y_axis: -dy * Double(scale))
        withUnsafeMutablePointer(to: &event) { pointer in
            pointer.withMemoryRebound(to: wpe_input_axis_event.self, capacity: 1) { base in
                wpe_view_backend_dispatch_axis_event(backend, base)
            }
        }
    }

    /// What a touch point did.
    public enum TouchPhase: Sendable {
        case down, motion, up
    }

    /// Touch point `id` went down, moved or lifted at (x, y), in the screen's logical coordinates. WPE sends the
    /// changed point with every point that is down (the others as they last were).
    public func touch(_ phase: TouchPhase, id: Int32, x: Double, y: Double) {
        guard let backend else { return }
        if phase != .down && touchPoints[id] == nil { return }
        let type =
            switch phase {
            case .down: wpe_input_touch_event_type_down
            case .motion: wpe_input_touch_event_type_motion
            case .up: wpe_input_touch_event_type_up
            }
        let time = Self.eventTime()
        let (px, py) = devicePixels(x, y)
        touchPoints[id] = wpe_input_touch_event_raw(type: type, time: time, id: id, x: px, y: py)
        var points = touchPoints.values.sorted { $0.id < $1.id }
        if phase == .up { touchPoints[id] = nil }
        points.withUnsafeMutableBufferPointer { buffer in
            var event = wpe_input_touch_event(
                touchpoints: buffer.baseAddress, touchpoints_length: UInt64(buffer.count), type: type, id: id,
                time: time, modifiers: 0)
            wpe_view_backend_dispatch_touch_event(backend, &event)
        }
    }

    /// The compositor took the touch sequence over: every point that is down lifts where it is (WPE has no cancel).
    public func cancelTouches() {
        for point in touchPoints.values.sorted(by: { $0.id < $1.id }) {
            touch(.up, id: point.id, x: Double(point.x) / Double(scale), y: Double(point.y) / Double(scale))
        }
    }

    private func devicePixels(_ x: Double, _ y: Double) -> (Int32, Int32) {
        (Int32(clamping: Int((x * Double(scale)).rounded())), Int32(clamping: Int((y * Double(scale)).rounded())))
    }

    /// Event times in milliseconds on one monotonic clock (WebKit compares them with each other only).
    private static func eventTime() -> UInt32 { UInt32(truncatingIfNeeded: monotonicNanoseconds() / 1_000_000) }
}
