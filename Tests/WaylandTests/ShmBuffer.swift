import CWaylandClient
import Glibc

/// A single-colour `wl_shm` buffer for test windows: a window needs a buffer to be mapped, and only a mapped window
/// gets keyboard and pointer focus.
///
/// Ownership: owns the `wl_buffer` (destroyed by `deinit`); the memfd and the pool are released right after the
/// buffer is created (the compositor keeps its own reference to the memory).
final class ShmBuffer {
    private(set) var buffer: OpaquePointer?

    private typealias MemfdCreate = @convention(c) (UnsafePointer<CChar>, UInt32) -> Int32

    /// - Returns: nil when the memory or the pool cannot be created.
    init?(shm: OpaquePointer, width: Int32, height: Int32, xrgb: UInt32 = 0xff33_6699) {
        // memfd_create(2) is declared only under _GNU_SOURCE, which Swift's Glibc module does not define.
        guard let symbol = dlsym(nil, "memfd_create") else { return nil }
        let memfdCreate = unsafeBitCast(symbol, to: MemfdCreate.self)
        let stride = width * 4
        let size = Int(stride * height)
        let mfdCloexec: UInt32 = 1
        let fd = memfdCreate("multiscreen-test-buffer", mfdCloexec)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard ftruncate(fd, off_t(size)) == 0,
            let map = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), map != MAP_FAILED
        else { return nil }
        let pixels = map.bindMemory(to: UInt32.self, capacity: size / 4)
        pixels.update(repeating: xrgb, count: size / 4)
        munmap(map, size)
        guard let pool = wl_shm_create_pool(shm, fd, Int32(size)) else { return nil }
        buffer = wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_XRGB8888.rawValue)
        // wayland.xml, wl_shm_pool.destroy: "The mmapped memory will be released when all buffers that have been
        // created from this pool are gone."
        wl_shm_pool_destroy(pool)
        if buffer == nil { return nil }
    }

    deinit {
        if let buffer { wl_buffer_destroy(buffer) }
    }
}
