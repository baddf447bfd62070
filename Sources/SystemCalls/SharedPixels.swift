import CLinux
import Glibc
import Synchronization

/// One picture's pixels in memory another process can map: a memfd of `stride × height` bytes, mapped here read and
/// write, whose descriptor stays open so that the compositor can be handed it (a `wl_shm_pool` is made from the
/// descriptor, and the pool maps the same pages: no copy).
///
/// The format is 32-bit XRGB8888 little-endian (`WL_SHM_FORMAT_XRGB8888`): each pixel is the `UInt32`
/// `0xXXRRGGBB`, that is the bytes B, G, R, X in memory. Decoders (images, video frames) write it; the display
/// thread only wraps it. Owns the descriptor and the mapping: both go in ``destroy()`` or `deinit`. Sendable
/// because its fields never change; who writes the pixels when is the owner's protocol (e.g. a frame pool's slot
/// states), not this class's.
public final class SharedPixels: @unchecked Sendable {
    public let width: Int32
    public let height: Int32
    /// Bytes from one row to the next: `width × 4`, no padding.
    public let stride: Int32
    public let byteCount: Int
    /// The memfd's size: the pixels and one spare row. A `wl_buffer` over part of a picture (a crop) starts inside
    /// the pool and keeps its row stride, and wl_shm counts it as `offset + stride × height` bytes: a crop that is not
    /// at the left edge reaches one row past the last pixel, into the spare row.
    public let poolBytes: Int
    /// The memfd: open for this object's life, closed by ``destroy()``.
    public let fileDescriptor: Int32
    /// The mapping of ``fileDescriptor``, ``poolBytes`` bytes (the picture is the first ``byteCount``); invalid after
    /// ``destroy()``.
    public let pixels: UnsafeMutableRawPointer
    private let destroyed = Atomic<Bool>(false)

    /// Makes the memory; every pixel is `fill` when given, else zero (black, X = 0).
    /// - Throws: ``SystemCallError`` when the memfd cannot be made, sized or mapped, or when the size is not
    ///   positive (`EINVAL`) or does not fit in 31 bits (a wl_shm pool's size is an `int32`).
    public init(width: Int32, height: Int32, fill: UInt32? = nil) throws(SystemCallError) {
        let size = Int(width) * Int(height) * 4
        let poolSize = size + Int(width) * 4
        guard width > 0, height > 0, poolSize <= Int(Int32.max) else {
            throw SystemCallError(
                call: "SharedPixels \(width)x\(height)", errno: width > 0 && height > 0 ? EFBIG : EINVAL)
        }
        let mfdCloexec: UInt32 = 1
        let fd = try systemCall("memfd_create") { ms_memfd_create("multiscreen-pixels", mfdCloexec) }
        do {
            _ = try systemCall("ftruncate") { ftruncate(fd, off_t(poolSize)) }
        } catch {
            close(fd)
            throw error
        }
        guard let map = mmap(nil, poolSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), map != MAP_FAILED else {
            let error = errno
            close(fd)
            throw SystemCallError(call: "mmap", errno: error)
        }
        self.width = width
        self.height = height
        stride = width * 4
        byteCount = size
        poolBytes = poolSize
        fileDescriptor = fd
        pixels = map
        let words = map.bindMemory(to: UInt32.self, capacity: size / 4)
        // A fresh memfd reads as zeros already: only a non-zero fill writes (and so commits) the pages.
        if let fill, fill != 0 { words.update(repeating: fill, count: size / 4) }
    }

    deinit { destroy() }

    /// Unmaps the pixels and closes the descriptor. Safe to call twice, from any thread; nothing may touch
    /// ``pixels`` afterwards.
    public func destroy() {
        guard !destroyed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        munmap(pixels, poolBytes)
        close(fileDescriptor)
    }

    /// The pixels as 32-bit values, `stride / 4` per row.
    public var words: UnsafeMutablePointer<UInt32> {
        pixels.assumingMemoryBound(to: UInt32.self)
    }
}
