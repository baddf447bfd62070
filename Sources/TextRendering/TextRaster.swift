/// A rasterised block of text as ``TextRasterizer/withRaster(_:style:box:maxTextureSize:_:)`` lends it: what a
/// ``TextBitmap`` holds, but its pixels in the rasterizer's own memory, valid only during the call. Uploading a text
/// to a texture needs nothing more, and costs no allocation of its own.
public struct TextRaster {
    /// Width in pixels; 0 for empty text.
    public let width: Int
    /// Height in pixels; 0 for empty text.
    public let height: Int
    /// See ``TextBitmap/originX``.
    public let originX: Int
    /// See ``TextBitmap/baseline``.
    public let baseline: Int
    public let lineCount: Int
    public let isEllipsized: Bool
    /// Premultiplied ARGB in cairo's `CAIRO_FORMAT_ARGB32` layout, row-major, stride == `width` pixels, top row first:
    /// `width × height × 4` bytes.
    public let pixels: UnsafeRawBufferPointer

    /// Bytes the pixels take (and the texture made from them).
    public var byteCount: Int { width * height * 4 }
}
