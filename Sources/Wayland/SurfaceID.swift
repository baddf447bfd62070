/// Which of our `wl_surface`s an input event concerns: a value that can be compared and kept, without the raw
/// proxy leaving this module. Two live surfaces never share one; a destroyed surface's id may be reused by a new
/// surface, so do not keep one past its window's life.
public struct SurfaceID: Hashable, Sendable, CustomStringConvertible {
    let address: UInt

    init?(_ surface: OpaquePointer?) {
        guard let surface else { return nil }
        address = UInt(bitPattern: surface)
    }

    public var description: String { "surface 0x" + String(address, radix: 16) }
}
