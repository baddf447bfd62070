import CWaylandClient
import Logging

/// Owns one bound `wl_seat` and the input devices it currently has: a ``Keyboard``, a ``Pointer``, a ``Touch``,
/// each created when the seat gains the capability and released when it loses it (`wl_seat.capabilities` is sent
/// again on every change, e.g. when `wtype` adds a virtual keyboard for the time it runs).
///
/// The application sets the closures once; they outlive the devices. Key repeat runs on ``keyRepeater``, whose
/// timerfd the application watches for the seat's whole life:
/// ```swift
/// seat.onKey = { event in … }
/// seat.hidesCursor = { surface in isExternal(surface) }
/// loop.watch(seat.keyRepeater.fileDescriptor) { seat.keyRepeater.handleTimer() }
/// ```
public final class Seat {
    /// `wl_seat` v7: keymaps mapped `MAP_PRIVATE`; v8 would replace `axis_discrete` with `axis_value120`.
    public static let supportedVersion: UInt32 = 7

    public struct Capabilities: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let pointer = Capabilities(rawValue: WL_SEAT_CAPABILITY_POINTER.rawValue)
        public static let keyboard = Capabilities(rawValue: WL_SEAT_CAPABILITY_KEYBOARD.rawValue)
        public static let touch = Capabilities(rawValue: WL_SEAT_CAPABILITY_TOUCH.rawValue)
    }

    public let registryName: UInt32
    public private(set) var proxy: OpaquePointer?
    public let version: UInt32
    /// `wl_seat.name` (v2), e.g. "seat0".
    public private(set) var name = ""
    /// Whether a `capabilities` event came before (the first one describes the seat as we found it).
    private var capabilitiesSeen = false
    public private(set) var capabilities: Capabilities = []
    public private(set) var keyboard: Keyboard?
    public private(set) var pointer: Pointer?
    public private(set) var touch: Touch?
    /// Repeats held keys for whichever keyboard the seat has; watch its ``KeyRepeater/fileDescriptor``.
    public let keyRepeater = KeyRepeater()
    /// The locale whose Compose table keyboards created from now on use.
    public var composeLocale = KeyTranslator.environmentLocale()

    public var onKey: (KeyEvent) -> Void = { _ in }
    /// Keyboard focus moved to one of our surfaces (non-nil) or away (nil).
    public var onKeyboardFocus: (SurfaceID?) -> Void = { _ in }
    public var onPointer: (PointerEvent) -> Void = { _ in }
    public var onTouch: (TouchEvent) -> Void = { _ in }
    /// Asked when the pointer enters a surface: true hides the cursor there (external screens).
    public var hidesCursor: (SurfaceID?) -> Bool = { _ in false }
    /// The capabilities changed (after the devices were created or released).
    public var onCapabilities: (Capabilities) -> Void = { _ in }

    private let logger = Logger(label: "multiscreen.wayland")

    public init(registryName: UInt32, proxy: OpaquePointer, version: UInt32) {
        self.registryName = registryName
        self.proxy = proxy
        self.version = version
        wl_seat_add_listener(proxy, seatListener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Binds the `wl_seat` global `name` at `min(advertised, 7)`.
    public convenience init?(registry: Registry, name: UInt32) {
        guard let bound = registry.bind(name, interface: ms_wl_seat_interface(), supported: Self.supportedVersion)
        else { return nil }
        self.init(registryName: name, proxy: bound.proxy, version: bound.version)
    }

    deinit { destroy() }

    /// Releases the devices (each with its own `release`), then the seat: `wl_seat.release` (v5+) tells the
    /// compositor we are done with it, unlike a client-side destroy. Safe to call twice.
    public func destroy() {
        touch?.destroy()
        pointer?.destroy()
        keyboard?.destroy()
        (touch, pointer, keyboard) = (nil, nil, nil)
        guard let proxy else { return }
        if version >= 5 { wl_seat_release(proxy) } else { wl_seat_destroy(proxy) }
        self.proxy = nil
    }

    /// Re-applies ``hidesCursor`` to the surface the pointer is over, after roles changed.
    public func refreshCursor() { pointer?.refreshCursor() }

    fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> Seat {
        Unmanaged<Seat>.fromOpaque(data!).takeUnretainedValue()
    }

    fileprivate func setCapabilities(_ new: Capabilities) {
        capabilities = new
        // A keyboard that appears after the seat's first capabilities is a device plugged in (or a virtual one made)
        // while we run: keys it holds when we first get focus are its first presses. Not so for the keyboard the
        // seat had when we bound it, whose first `enter` is just focus arriving.
        defer { capabilitiesSeen = true }
        if new.contains(.keyboard), keyboard == nil, let p = wl_seat_get_keyboard(proxy) {
            let device = Keyboard(
                proxy: p, version: version, repeater: keyRepeater, composeLocale: composeLocale,
                appearedWhileRunning: capabilitiesSeen)
            device.onKey = { [unowned self] in self.onKey($0) }
            device.onFocus = { [unowned self] in self.onKeyboardFocus($0) }
            keyboard = device
        } else if !new.contains(.keyboard), let device = keyboard {
            device.destroy()
            keyboard = nil
            onKeyboardFocus(nil)
        }
        if new.contains(.pointer), pointer == nil, let p = wl_seat_get_pointer(proxy) {
            let device = Pointer(proxy: p, version: version)
            device.onEvent = { [unowned self] in self.onPointer($0) }
            device.hidesCursor = { [unowned self] in self.hidesCursor($0) }
            pointer = device
        } else if !new.contains(.pointer), let device = pointer {
            device.destroy()
            pointer = nil
        }
        if new.contains(.touch), touch == nil, let p = wl_seat_get_touch(proxy) {
            let device = Touch(proxy: p, version: version)
            device.onEvent = { [unowned self] in self.onTouch($0) }
            touch = device
        } else if !new.contains(.touch), let device = touch {
            device.destroy()
            touch = nil
        }
        let names = [(Capabilities.keyboard, "keyboard"), (.pointer, "pointer"), (.touch, "touch")]
            .filter { new.contains($0.0) }.map(\.1)
        logger.info("seat: \(names.isEmpty ? "no input devices" : names.joined(separator: ", "))")
        onCapabilities(new)
    }

    fileprivate func setName(_ name: String) { self.name = name }
}

private nonisolated(unsafe) let seatListener: UnsafeMutablePointer<wl_seat_listener> = {
    let listener = UnsafeMutablePointer<wl_seat_listener>.allocate(capacity: 1)
    listener.initialize(
        to: wl_seat_listener(
            capabilities: { data, _, caps in Seat.from(data).setCapabilities(Seat.Capabilities(rawValue: caps)) },
            // v2.
            name: { data, _, name in Seat.from(data).setName(name.map { String(cString: $0) } ?? "") }))
    return listener
}()
