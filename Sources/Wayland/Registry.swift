import CWaylandClient
import Glibc

/// The `wl_registry`: announces globals as they appear and disappear.
///
/// Handlers only record and forward; binding policy lives with whoever owns the registry
/// (``WaylandGlobals`` for singletons, the application for outputs).
public final class Registry {
    public private(set) var proxy: OpaquePointer?
    /// The `wl_display` the registry belongs to (not owned: ``WaylandDisplay`` is).
    public let display: OpaquePointer?
    /// Every global currently advertised, by registry name.
    public private(set) var globals: [UInt32: (interface: String, version: UInt32)] = [:]
    public var onGlobal: (UInt32, String, UInt32) -> Void = { _, _, _ in }
    public var onGlobalRemove: (UInt32) -> Void = { _ in }

    public init(display: WaylandDisplay) {
        self.display = display.pointer
        proxy = wl_display_get_registry(display.pointer)
        wl_registry_add_listener(proxy, registryListener, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { destroy() }

    /// Binds global `name` at `min(advertised, supported)`: never ask for a version the compositor lacks,
    /// never receive events of a version we do not handle (libwayland aborts on a NULL listener slot).
    public func bind(
        _ name: UInt32, interface: UnsafePointer<wl_interface>, supported: UInt32
    ) -> (proxy: OpaquePointer, version: UInt32)? {
        guard let advertised = globals[name]?.version else { return nil }
        let version = min(advertised, supported)
        guard let raw = wl_registry_bind(proxy, name, interface, version) else { return nil }
        return (OpaquePointer(raw), version)
    }

    public func destroy() {
        // No event can arrive once the proxy is gone: drop the handlers, and with them whatever they captured, which
        // may be this registry itself (a cycle LeakSanitizer found in `multiscreen outputs`).
        onGlobal = { _, _, _ in }
        onGlobalRemove = { _ in }
        guard let proxy else { return }
        wl_registry_destroy(proxy)
        self.proxy = nil
    }

    fileprivate func global(_ name: UInt32, _ interface: String, _ version: UInt32) {
        globals[name] = (interface, version)
        onGlobal(name, interface, version)
    }

    fileprivate func globalRemove(_ name: UInt32) {
        onGlobalRemove(name)
        globals[name] = nil
    }
}

private nonisolated(unsafe) let registryListener: UnsafeMutablePointer<wl_registry_listener> = {
    let listener = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
    listener.initialize(
        to: wl_registry_listener(
            global: { data, _, name, interface, version in
                Unmanaged<Registry>.fromOpaque(data!).takeUnretainedValue()
                    .global(name, String(cString: interface!), version)
            },
            global_remove: { data, _, name in
                Unmanaged<Registry>.fromOpaque(data!).takeUnretainedValue().globalRemove(name)
            }))
    return listener
}()
