import SystemCalls

/// A decoded video frame handed to the display thread by ``VideoPipeline/takeFrame()``: the display thread owns it
/// (the decoder will not write these pixels) until it gives it back with ``VideoPipeline/release(_:)``, when the
/// compositor has released every `wl_buffer` over it.
public struct VideoFrame: Sendable {
    /// The pool slot it came from (0 ..< 4).
    public let slot: Int
    /// BGRx (XRGB8888) pixels of the video's size.
    public let pixels: SharedPixels
    /// Its place in decoding order, from 1; a gap means frames were dropped between two takes.
    public let number: UInt64
    /// The buffer's presentation time in nanoseconds (the stream's PTS: it restarts at each loop).
    public let presentationTime: UInt64
}
