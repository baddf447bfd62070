/// What a decoded image may cost, checked before the memory is taken.
public struct ImageLimits: Sendable {
    /// The most pixels a file's header may claim (width × height as stored): a decompression bomb (a PNG of a few
    /// hundred bytes claiming 100 000 × 100 000) is refused from its header. 100 megapixels passes every camera
    /// and poster a signage screen is given.
    public var maximumSourcePixels = 100_000_000
    /// The most bytes all frames of an animation may take together, counted at the file's own size (what the
    /// loader holds while it decodes them).
    public var maximumAnimationBytes = 256 << 20

    public init() {}
}
