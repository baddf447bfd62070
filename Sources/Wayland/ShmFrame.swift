import CLinux
import CWaylandClient
import Glibc
import SystemCalls

/// One frame of pixels in memory Multiscreen owns, shown on any number of surfaces: a memfd mapped here and
/// handed to the compositor as a `wl_shm_pool`, with one `wl_buffer` per surface over the same bytes (offset 0).
/// Each surface gets its own `wl_buffer` so that each has its own `release`: the frame may be written again only
/// when every surface has released it (wayland.xml, `wl_surface.attach`: a client that mutates the storage of a
/// buffer the compositor still holds makes the surface contents undefined).
///
/// Owns the mapping, the pool and every `wl_buffer` made from it. A buffer whose surface stops using this frame is
/// destroyed at once when the compositor does not hold it, else on its `release`. ``destroy()`` (the owning
/// ``SharedFramePool`` calls it) destroys the buffers, then the pool, then unmaps.
public final class ShmFrame {
    public let width: Int32
    public let height: Int32
    public let stride: Int32
    public var byteCount: Int { Int(stride) * Int(height) }
    private var pixels: UnsafeMutableRawPointer?
    private var pool: OpaquePointer?
    private var buffers: [SurfaceID: PooledBuffer] = [:]

    /// - Throws: ``SystemCallError`` when the memory cannot be made.
    init(shm: OpaquePointer, width: Int32, height: Int32, fill: UInt32? = nil) throws {
        self.width = width
        self.height = height
        stride = width * 4
        let size = Int(stride) * Int(height)
        let mfdCloexec: UInt32 = 1
        let fd = try systemCall("memfd_create") { ms_memfd_create("multiscreen-frame", mfdCloexec) }
        defer { close(fd) }
        _ = try systemCall("ftruncate") { ftruncate(fd, off_t(size)) }
        guard let map = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), map != MAP_FAILED else {
            throw SystemCallError(call: "mmap", errno: errno)
        }
        pixels = map
        if let fill { map.bindMemory(to: UInt32.self, capacity: size / 4).update(repeating: fill, count: size / 4) }
        // The pool takes its own reference to the memory: the fd can be closed once the pool exists.
        pool = wl_shm_create_pool(shm, fd, Int32(size))
    }

    deinit { destroy() }

    /// The surfaces whose buffer over this frame the compositor holds (attached and not released yet).
    public var holders: Int { buffers.values.count { $0.isHeld } }
    public var isHeld: Bool { buffers.values.contains { $0.isHeld } }
    /// `wl_buffer`s alive over this frame (held or idle).
    public var bufferCount: Int { buffers.count }
    /// The surfaces with a `wl_buffer` over this frame.
    var surfaces: [SurfaceID] { Array(buffers.keys) }

    /// The pixels, to write a new picture into. Never while the compositor holds the frame: a debug build stops
    /// here if it does.
    public func pixelsForWriting() -> UnsafeMutableRawPointer {
        assert(!isHeld, "writing a frame the compositor still holds (\(holders) surfaces)")
        return pixels!
    }

    /// Attaches this frame to `surface` through the surface's own `wl_buffer` (made on first use) and damages all
    /// of it; the caller commits. A surface that already holds this frame keeps it without a new attach (the same
    /// buffer attached twice would blur whose `release` is whose).
    /// - Returns: false when the surface already showed this frame.
    @discardableResult
    public func attach(to surface: OpaquePointer) -> Bool {
        guard let id = SurfaceID(surface) else { return false }
        let buffer: PooledBuffer
        if let existing = buffers[id] {
            if existing.isHeld { return false }
            buffer = existing
        } else {
            guard let made = wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_XRGB8888.rawValue)
            else { return false }
            buffer = PooledBuffer(proxy: made) { [unowned self] in released(id) }
            buffers[id] = buffer
        }
        buffer.isHeld = true
        buffer.isRetiring = false
        wl_surface_attach(surface, buffer.proxy, 0, 0)
        wl_surface_damage_buffer(surface, 0, 0, width, height)
        return true
    }

    /// `surface` will not show this frame again (it shows another kind of content, or it is gone): its buffer is
    /// destroyed now if the compositor does not hold it, else when the compositor releases it.
    func retire(_ surface: SurfaceID) {
        guard let buffer = buffers[surface] else { return }
        if buffer.isHeld {
            buffer.isRetiring = true
        } else {
            buffer.destroy()
            buffers[surface] = nil
        }
    }

    private func released(_ surface: SurfaceID) {
        guard let buffer = buffers[surface] else { return }
        buffer.isHeld = false
        if buffer.isRetiring {
            buffer.destroy()
            buffers[surface] = nil
        }
    }

    /// Destroys every buffer, the pool and the mapping. Safe to call twice.
    func destroy() {
        for buffer in buffers.values { buffer.destroy() }
        buffers.removeAll()
        if let pool { wl_shm_pool_destroy(pool) }
        pool = nil
        if let pixels { munmap(pixels, byteCount) }
        pixels = nil
    }
}

/// One `wl_buffer` over a ``ShmFrame``, for one surface, with its `release` listener.
private final class PooledBuffer {
    private(set) var proxy: OpaquePointer?
    /// Attached and not released by the compositor yet.
    var isHeld = false
    /// To be destroyed when the compositor releases it.
    var isRetiring = false
    private let onRelease: () -> Void

    init(proxy: OpaquePointer, onRelease: @escaping () -> Void) {
        self.proxy = proxy
        self.onRelease = onRelease
        wl_buffer_add_listener(proxy, bufferListener, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { destroy() }

    func destroy() {
        if let proxy { wl_buffer_destroy(proxy) }
        proxy = nil
    }

    fileprivate func release() {
        withExtendedLifetime(self) { onRelease() }
    }
}

private nonisolated(unsafe) let bufferListener: UnsafeMutablePointer<wl_buffer_listener> = {
    let listener = UnsafeMutablePointer<wl_buffer_listener>.allocate(capacity: 1)
    listener.initialize(
        to: wl_buffer_listener(release: { data, _ in
            Unmanaged<PooledBuffer>.fromOpaque(data!).takeUnretainedValue().release()
        }))
    return listener
}()
