import Outputs

/// Photodiode / camera mode: a square patch in one corner of every screen that turns white or black with every
/// frame that shows new messages, so an external sensor sees one transition per such frame and can be lined up
/// with that frame's `presented` time (the `frame.shown` event and `latency.json` carry the patch's new colour).
public struct FlashPatch: Equatable, Sendable {
    public typealias Corner = ScreenCorner

    /// The side of the square in logical pixels (multiplied by the buffer scale when drawn).
    public var size: Int
    public var corner: Corner

    public init(size: Int = 64, corner: Corner = .topLeft) {
        self.size = size
        self.corner = corner
    }

    /// Where the patch goes in a buffer of `width`×`height` pixels at `scale` buffer pixels per logical pixel:
    /// clamped to the buffer.
    public func rect(bufferWidth width: Int, bufferHeight height: Int, scale: Double) -> Rect {
        let side = Float(min(Double(size) * scale, Double(min(width, height))).rounded())
        let right = corner == .topRight || corner == .bottomRight
        let bottom = corner == .bottomLeft || corner == .bottomRight
        return Rect(
            x: right ? Float(width) - side : 0, y: bottom ? Float(height) - side : 0, width: side, height: side)
    }
}
