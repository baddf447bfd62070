import CLinux
import CWaylandClient
import Glibc
import SystemCalls

/// One frame of pixels in memory Multiscreen owns, shown on any number of surfaces: a ``SharedPixels`` memfd handed to
/// the compositor as a `wl_shm_pool`, with one `wl_buffer` per surface over the same bytes (offset 0).
/// Each surface gets its own `wl_buffer` so that each has its own `release`: the frame may be written again only
/// when every surface has released it (wayland.xml, `wl_surface.attach`: a client that mutates the storage of a
/// buffer the compositor still holds makes the surface contents undefined).
///
/// Owns the pool and every `wl_buffer` made from it, and holds the pixels (which others may hold too: a video's frame
/// pool keeps its frames across screens). A buffer whose surface stops using this frame is destroyed at once when the
/// compositor does not hold it, else on its `release`. ``destroy()`` (its owner calls it) destroys the buffers, then
/// the pool, then lets go of the pixels.
public final class ShmFrame {
    public let width: Int32
    public let height: Int32
    public let stride: Int32
    public var byteCount: Int { Int(stride) * Int(height) }
    /// The pixels' fourth byte is alpha, premultiplied (`WL_SHM_FORMAT_ARGB8888`), rather than unused (XRGB8888).
    public let hasAlpha: Bool
    /// The memory shown; nil once destroyed.
    public private(set) var memory: SharedPixels?
    private var pool: OpaquePointer?
    private var buffers: [SurfaceID: PooledBuffer] = [:]

    /// New memory of this size, filled with `fill` when given.
    /// - Throws: ``SystemCallError`` when the memory cannot be made.
    convenience init(shm: OpaquePointer, width: Int32, height: Int32, fill: UInt32? = nil, hasAlpha: Bool = false)
        throws
    {
        self.init(shm: shm, pixels: try SharedPixels(width: width, height: height, fill: fill), hasAlpha: hasAlpha)
    }

    /// Shows `pixels`, written elsewhere (a decoder's): the compositor maps the same memory, nothing is copied.
    public init(shm: OpaquePointer, pixels: SharedPixels, hasAlpha: Bool = false) {
        self.hasAlpha = hasAlpha
        width = pixels.width
        height = pixels.height
        stride = pixels.stride
        memory = pixels
        // The pool takes its own reference to the memory, independent of the descriptor's later close.
        pool = wl_shm_create_pool(shm, pixels.fileDescriptor, Int32(pixels.poolBytes))
    }

    deinit { destroy() }

    /// The rows in which this frame's pixels differ from `other`'s (both whole frames of the same size): the first
    /// differing row to the last. Nil when they cannot be compared (another size, either destroyed).
    public func rowsDiffering(from other: ShmFrame) -> Range<Int32>? {
        guard other !== self, other.width == width, other.height == height, other.stride == stride,
            let mine = memory?.pixels, let theirs = other.memory?.pixels
        else { return nil }
        let rowBytes = Int(width) * 4
        func differs(_ row: Int32) -> Bool {
            let offset = Int(row) * Int(stride)
            return memcmp(mine + offset, theirs + offset, rowBytes) != 0
        }
        guard let first = (0..<height).first(where: differs) else { return 0..<0 }
        let last = (first..<height).last(where: differs) ?? first
        return first..<(last + 1)
    }

    /// The surfaces whose buffer over this frame the compositor holds (attached and not released yet).
    public var holders: Int { Set(allBuffers.filter(\.isHeld).map(\.surface)).count }
    public var isHeld: Bool { allBuffers.contains { $0.isHeld } }
    /// `wl_buffer`s alive over this frame (held or idle).
    public var bufferCount: Int { allBuffers.count }
    /// The surfaces with a `wl_buffer` over this frame.
    var surfaces: [SurfaceID] { Array(buffers.keys) }
    private var allBuffers: [PooledBuffer] { Array(buffers.values) + retired }
    /// Buffers that no surface will show again, destroyed when the compositor releases them.
    private var retired: [PooledBuffer] = []

    /// The pixels, to write a new picture into. Never while the compositor holds the frame: a debug build stops
    /// here if it does.
    public func pixelsForWriting() -> UnsafeMutableRawPointer {
        assert(!isHeld, "writing a frame the compositor still holds (\(holders) surfaces)")
        return memory!.pixels
    }

    /// Attaches this frame to `surface` through the surface's own `wl_buffer` (made on first use) and damages it; the
    /// caller commits. A surface that already holds this frame keeps it without a new attach (the same buffer
    /// attached twice would blur whose `release` is whose).
    ///
    /// `crop`: the part of the frame the buffer covers (a `wl_buffer` may start anywhere in its pool and keep the
    /// pool's row stride, so a crop costs no copy), the whole frame by default. A new crop makes a new buffer; the
    /// old one goes once released.
    /// `rows`: the only rows of the buffer (of the crop, when cropped) that differ from what the surface showed before
    /// (none: no damage at all), so that the compositor copies and composites only those; nil damages all of it.
    /// - Returns: false when the surface already showed this frame so cropped.
    @discardableResult
    public func attach(to surface: OpaquePointer, crop: PixelCrop? = nil, rows: Range<Int32>? = nil) -> Bool {
        guard let id = SurfaceID(surface) else { return false }
        let crop = (crop ?? PixelCrop(x: 0, y: 0, width: width, height: height)).clamped(width: width, height: height)
        if let existing = buffers[id], existing.crop != crop {
            retire(id)
        }
        let buffer: PooledBuffer
        if let existing = buffers[id] {
            if existing.isHeld { return false }
            buffer = existing
        } else {
            let offset = crop.y * stride + crop.x * 4
            guard
                let made = wl_shm_pool_create_buffer(
                    pool, offset, crop.width, crop.height, stride,
                    (hasAlpha ? WL_SHM_FORMAT_ARGB8888 : WL_SHM_FORMAT_XRGB8888).rawValue)
            else { return false }
            let created = PooledBuffer(proxy: made, surface: id, crop: crop)
            created.onRelease = { [unowned self, unowned created] in released(created) }
            buffer = created
            buffers[id] = buffer
        }
        buffer.isHeld = true
        wl_surface_attach(surface, buffer.proxy, 0, 0)
        if let rows {
            let clamped = rows.clamped(to: 0..<crop.height)
            if !clamped.isEmpty {
                wl_surface_damage_buffer(surface, 0, clamped.lowerBound, crop.width, Int32(clamped.count))
            }
        } else {
            wl_surface_damage_buffer(surface, 0, 0, crop.width, crop.height)
        }
        return true
    }

    /// `surface` will not show this frame again (it shows another kind of content, or it is gone): its buffer is
    /// destroyed now if the compositor does not hold it, else when the compositor releases it.
    public func retire(_ surface: SurfaceID) {
        guard let buffer = buffers.removeValue(forKey: surface) else { return }
        if buffer.isHeld {
            retired.append(buffer)
        } else {
            buffer.destroy()
        }
    }

    private func released(_ buffer: PooledBuffer) {
        buffer.isHeld = false
        if let index = retired.firstIndex(where: { $0 === buffer }) {
            retired.remove(at: index)
            buffer.destroy()
        }
    }

    /// Destroys every buffer and the pool, and lets go of the pixels (unmapped when nobody else holds them). Safe to
    /// call twice.
    public func destroy() {
        for buffer in allBuffers { buffer.destroy() }
        buffers.removeAll()
        retired.removeAll()
        if let pool { wl_shm_pool_destroy(pool) }
        pool = nil
        memory = nil
    }
}

/// A rectangle of a frame's pixels, in whole pixels from its top-left corner.
public struct PixelCrop: Equatable, Sendable {
    public var x: Int32
    public var y: Int32
    public var width: Int32
    public var height: Int32

    public init(x: Int32, y: Int32, width: Int32, height: Int32) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// Inside a frame of `width`×`height`, at least one pixel.
    func clamped(width frameWidth: Int32, height frameHeight: Int32) -> PixelCrop {
        let x = min(max(x, 0), frameWidth - 1)
        let y = min(max(y, 0), frameHeight - 1)
        return PixelCrop(
            x: x, y: y, width: min(max(width, 1), frameWidth - x), height: min(max(height, 1), frameHeight - y))
    }
}

/// One `wl_buffer` over a ``ShmFrame``, for one surface, with its `release` listener.
private final class PooledBuffer {
    private(set) var proxy: OpaquePointer?
    let surface: SurfaceID
    let crop: PixelCrop
    /// Attached and not released by the compositor yet.
    var isHeld = false
    var onRelease: () -> Void = {}

    init(proxy: OpaquePointer, surface: SurfaceID, crop: PixelCrop) {
        self.proxy = proxy
        self.surface = surface
        self.crop = crop
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
