import CWaylandClient

/// Owns one `wl_pointer`: where the pointer is, which buttons it presses, and whether our cursor shows.
///
/// Created by ``Seat`` when the seat gains the pointer capability and released when it loses it. Positions are
/// surface-local and logical, kept from `enter`/`motion` so a `button` (which carries none) is reported where it
/// happened.
public final class Pointer {
    public private(set) var proxy: OpaquePointer?
    public let version: UInt32
    /// The surface the pointer is over (between `enter` and `leave`).
    public private(set) var focus: SurfaceID?
    public private(set) var x: Double = 0
    public private(set) var y: Double = 0
    /// Whether we hid the cursor on the surface the pointer is over (``hidesCursor`` said so at `enter`).
    public private(set) var isCursorHidden = false
    public var onEvent: (PointerEvent) -> Void = { _ in }
    /// Asked at every `enter`: true hides the cursor over that surface (external screens show no cursor). Over other
    /// surfaces the cursor is left as the compositor shows it.
    public var hidesCursor: (SurfaceID?) -> Bool = { _ in false }

    /// The serial of the last `enter`: `set_cursor` is honoured only with it.
    private var enterSerial: UInt32 = 0
    /// Scrolling of the current frame, emitted as one ``PointerEvent/scroll(surface:dx:dy:discreteX:discreteY:)``.
    private var scrollX: Double = 0
    private var scrollY: Double = 0
    private var discreteX: Int32 = 0
    private var discreteY: Int32 = 0

    /// Takes ownership of `proxy`, a `wl_pointer` of `version`.
    public init(proxy: OpaquePointer, version: UInt32) {
        self.proxy = proxy
        self.version = version
        wl_pointer_add_listener(proxy, pointerListener, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { destroy() }

    /// `wl_pointer.release` (v3+), which tells the compositor we are done, unlike a client-side destroy.
    public func destroy() {
        guard let proxy else { return }
        if version >= 3 { wl_pointer_release(proxy) } else { wl_pointer_destroy(proxy) }
        self.proxy = nil
        focus = nil
    }

    fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> Pointer {
        Unmanaged<Pointer>.fromOpaque(data!).takeUnretainedValue()
    }

    fileprivate func enter(serial: UInt32, surface: OpaquePointer?, x: Double, y: Double) {
        let surface = SurfaceID(surface)
        (focus, self.x, self.y, enterSerial, isCursorHidden) = (surface, x, y, serial, false)
        refreshCursor()
        onEvent(.enter(surface: surface, x: x, y: y))
    }

    /// Asks ``hidesCursor`` again about the surface the pointer is over and hides the cursor if it now says so
    /// (a screen became external while the pointer was on it). A cursor once hidden stays hidden until the pointer
    /// leaves: showing it again would need a cursor surface of our own, and the next `enter` restores the
    /// compositor's.
    public func refreshCursor() {
        guard let proxy, let focus, !isCursorHidden, hidesCursor(focus) else { return }
        // wayland.xml, wl_pointer.set_cursor: "If surface is NULL, the pointer image is hidden." The serial must be
        // the last enter's, or the compositor ignores the request.
        wl_pointer_set_cursor(proxy, enterSerial, nil, 0, 0)
        isCursorHidden = true
    }

    fileprivate func leave(surface: OpaquePointer?) {
        (focus, isCursorHidden) = (nil, false)
        onEvent(.leave(surface: SurfaceID(surface)))
    }

    fileprivate func motion(x: Double, y: Double) {
        (self.x, self.y) = (x, y)
        onEvent(.motion(surface: focus, x: x, y: y))
    }

    fileprivate func button(_ button: UInt32, state: UInt32) {
        if state == WL_POINTER_BUTTON_STATE_PRESSED.rawValue {
            onEvent(.press(button: button, surface: focus, x: x, y: y))
        } else {
            onEvent(.release(button: button, surface: focus, x: x, y: y))
        }
    }

    fileprivate func axis(_ axis: UInt32, value: Double) {
        if axis == WL_POINTER_AXIS_HORIZONTAL_SCROLL.rawValue { scrollX += value } else { scrollY += value }
        // Before v5 there is no `frame`: every axis event stands alone.
        if version < 5 { frame() }
    }

    fileprivate func axisDiscrete(_ axis: UInt32, steps: Int32) {
        if axis == WL_POINTER_AXIS_HORIZONTAL_SCROLL.rawValue { discreteX += steps } else { discreteY += steps }
    }

    fileprivate func frame() {
        guard scrollX != 0 || scrollY != 0 || discreteX != 0 || discreteY != 0 else { return }
        let event = PointerEvent.scroll(
            surface: focus, dx: scrollX, dy: scrollY, discreteX: discreteX, discreteY: discreteY)
        (scrollX, scrollY, discreteX, discreteY) = (0, 0, 0, 0)
        onEvent(event)
    }
}

private nonisolated(unsafe) let pointerListener: UnsafeMutablePointer<wl_pointer_listener> = {
    let listener = UnsafeMutablePointer<wl_pointer_listener>.allocate(capacity: 1)
    listener.initialize(
        to: wl_pointer_listener(
            enter: { data, _, serial, surface, x, y in
                Pointer.from(data).enter(
                    serial: serial, surface: surface, x: wl_fixed_to_double(x), y: wl_fixed_to_double(y))
            },
            leave: { data, _, _, surface in Pointer.from(data).leave(surface: surface) },
            motion: { data, _, _, x, y in
                Pointer.from(data).motion(x: wl_fixed_to_double(x), y: wl_fixed_to_double(y))
            },
            button: { data, _, _, _, button, state in Pointer.from(data).button(button, state: state) },
            axis: { data, _, _, axis, value in Pointer.from(data).axis(axis, value: wl_fixed_to_double(value)) },
            // v5: ends a group of events that belong together (a diagonal scroll is two `axis` events).
            frame: { data, _ in Pointer.from(data).frame() },
            // v5: wheel, finger, continuous, wheel tilt. Scrolling is scrolling to the controller UI.
            axis_source: { _, _, _ in },
            // v5: the end of a finger scroll, for kinetic scrolling, which we do not do.
            axis_stop: { _, _, _, _ in },
            // v5–v7: wheel detents of the `axis` event in the same frame.
            axis_discrete: { data, _, axis, steps in Pointer.from(data).axisDiscrete(axis, steps: steps) },
            // v8 (replaces axis_discrete): never sent, Seat binds at most v7; filled so a NULL slot cannot abort.
            axis_value120: { data, _, axis, value in Pointer.from(data).axisDiscrete(axis, steps: value / 120) }))
    return listener
}()
