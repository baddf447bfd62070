import CWaylandClient

/// Owns one `wl_callback`: a `wl_surface.frame` callback, which fires once when the compositor says it is a good time
/// to draw, or a `wl_display.sync` callback, which fires once the compositor has processed every request sent before.
///
/// A surface that is not visible gets no frame callbacks, so a screen waiting on one simply stays quiet;
/// nothing else waits for it (we never block in `eglSwapBuffers`, swap interval 0).
public final class FrameCallback {
    private var proxy: OpaquePointer?
    private var done: ((UInt32) -> Void)?

    init(proxy: OpaquePointer, done: @escaping (UInt32) -> Void) {
        self.proxy = proxy
        self.done = done
        wl_callback_add_listener(proxy, callbackListener, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { cancel() }

    /// Destroys the callback without firing it (its surface is going away).
    public func cancel() {
        if let proxy { wl_callback_destroy(proxy) }
        proxy = nil
        done = nil
    }

    fileprivate func fire(_ time: UInt32) {
        let handler = done
        cancel()
        handler?(time)
    }
}

private nonisolated(unsafe) let callbackListener: UnsafeMutablePointer<wl_callback_listener> = {
    let listener = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)
    listener.initialize(
        to: wl_callback_listener(done: { data, _, time in
            let callback = Unmanaged<FrameCallback>.fromOpaque(data!).takeUnretainedValue()
            withExtendedLifetime(callback) { callback.fire(time) }
        }))
    return listener
}()
