import CWaylandClient

/// Owns one `wl_touch`: touch points going down, moving and lifting, delivered as ``TouchEvent`` values.
///
/// Created by ``Seat`` when the seat gains the touch capability and released when it loses it. Events are held until
/// `wl_touch.frame` ("indicates the end of a set of events that logically belong together") and then delivered in
/// order; `cancel` drops them and every point.
public final class Touch {
    public private(set) var proxy: OpaquePointer?
    public let version: UInt32
    public var onEvent: (TouchEvent) -> Void = { _ in }

    /// Points that are down: the surface they went down on (`up` names none) and their last position.
    private var points: [Int32: (surface: SurfaceID?, x: Double, y: Double)] = [:]
    private var pending: [TouchEvent] = []

    /// Takes ownership of `proxy`, a `wl_touch` of `version`.
    public init(proxy: OpaquePointer, version: UInt32) {
        self.proxy = proxy
        self.version = version
        wl_touch_add_listener(proxy, touchListener, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { destroy() }

    /// `wl_touch.release` (v3+).
    public func destroy() {
        guard let proxy else { return }
        if version >= 3 { wl_touch_release(proxy) } else { wl_touch_destroy(proxy) }
        self.proxy = nil
        points = [:]
        pending = []
    }

    fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> Touch {
        Unmanaged<Touch>.fromOpaque(data!).takeUnretainedValue()
    }

    fileprivate func down(id: Int32, surface: OpaquePointer?, x: Double, y: Double) {
        let surface = SurfaceID(surface)
        points[id] = (surface, x, y)
        pending.append(.down(id: id, surface: surface, x: x, y: y))
    }

    fileprivate func up(id: Int32) {
        guard let point = points.removeValue(forKey: id) else { return }
        pending.append(.up(id: id, surface: point.surface, x: point.x, y: point.y))
    }

    fileprivate func motion(id: Int32, x: Double, y: Double) {
        guard let surface = points[id]?.surface else { return }
        points[id] = (surface, x, y)
        pending.append(.motion(id: id, surface: surface, x: x, y: y))
    }

    fileprivate func frame() {
        let events = pending
        pending = []
        events.forEach(onEvent)
    }

    fileprivate func cancel() {
        // wayland.xml, wl_touch.cancel: "Sent if the compositor decides the touch stream is a global gesture. …
        // Touch cancellation applies to all touch points currently active on this client's surface."
        points = [:]
        pending = []
        onEvent(.cancel)
    }
}

private nonisolated(unsafe) let touchListener: UnsafeMutablePointer<wl_touch_listener> = {
    let listener = UnsafeMutablePointer<wl_touch_listener>.allocate(capacity: 1)
    listener.initialize(
        to: wl_touch_listener(
            down: { data, _, _, _, surface, id, x, y in
                Touch.from(data).down(id: id, surface: surface, x: wl_fixed_to_double(x), y: wl_fixed_to_double(y))
            },
            up: { data, _, _, _, id in Touch.from(data).up(id: id) },
            motion: { data, _, _, id, x, y in
                Touch.from(data).motion(id: id, x: wl_fixed_to_double(x), y: wl_fixed_to_double(y))
            },
            frame: { data, _ in Touch.from(data).frame() },
            cancel: { data, _ in Touch.from(data).cancel() },
            // v6: the contact's ellipse and angle; a press is a press whatever the finger's shape.
            shape: { _, _, _, _, _ in },
            orientation: { _, _, _, _ in }))
    return listener
}()
