import Outputs

/// Draws a picture into another on the CPU, as a compositor shows a `wl_shm` buffer through a viewport: part of it,
/// turned by quarter turns, scaled (bilinear) into a rectangle. What `screen.capture` does with the layers the
/// compositor composites itself (a picture, a video's frame, a mirror's shared frame), so that the capture is the
/// screen as shown.
public enum PictureComposite {
    /// A picture in memory: XRGB8888 (`wl_shm`'s byte order), `stride` bytes a row, as stored (before `rotation`).
    public struct Picture {
        public var pixels: UnsafeRawPointer
        public var width: Int
        public var height: Int
        public var stride: Int

        public init(pixels: UnsafeRawPointer, width: Int, height: Int, stride: Int) {
            self.pixels = pixels
            self.width = width
            self.height = height
            self.stride = stride
        }
    }

    /// Draws `source` (in the picture's pixels after `rotation`) into `destination` (in `target`'s pixels) of `target`,
    /// `targetWidth` × 4 bytes a row. Pixels of `destination` outside the target are skipped.
    public static func draw(
        _ picture: Picture, rotation: MediaRotation, source: Rect, into target: inout [UInt8], targetWidth: Int,
        targetHeight: Int, destination: Rect
    ) {
        guard picture.width > 0, picture.height > 0, destination.width > 0, destination.height > 0 else { return }
        let (w, h) = (Float(picture.width), Float(picture.height))
        let x0 = max(0, Int(destination.x.rounded()))
        let y0 = max(0, Int(destination.y.rounded()))
        let x1 = min(targetWidth, Int((destination.x + destination.width).rounded()))
        let y1 = min(targetHeight, Int((destination.y + destination.height).rounded()))
        guard x0 < x1, y0 < y1 else { return }
        let bytes = picture.pixels.assumingMemoryBound(to: UInt8.self)
        // A pixel's centre in the turned picture: `u` across a row, `v` down a column.
        let us = (x0..<x1).map { source.x + (Float($0) + 0.5 - destination.x) / destination.width * source.width }
        let vs = (y0..<y1).map { source.y + (Float($0) + 0.5 - destination.y) / destination.height * source.height }
        // Back to the stored picture (the turn undone, ``MediaPlacement/bufferCrop``'s mapping): each target column
        // reads along one of the picture's axes and each row along the other, so both are sampled once, here.
        let across = Axis(length: picture.width, step: 4)
        let down = Axis(length: picture.height, step: picture.stride)
        let (columns, rows): ([Tap], [Tap])
        switch rotation {
        case .none: (columns, rows) = (us.map { across.tap($0) }, vs.map { down.tap($0) })
        case .quarter: (columns, rows) = (us.map { down.tap(h - $0) }, vs.map { across.tap($0) })
        case .half: (columns, rows) = (us.map { across.tap(w - $0) }, vs.map { down.tap(h - $0) })
        case .threeQuarters: (columns, rows) = (us.map { down.tap($0) }, vs.map { across.tap(w - $0) })
        }
        // Fixed point: weights in 256ths, so a channel is two integer multiply-adds per axis (a 1080p picture is two
        // million pixels; floats rounded per channel took most of a capture's time).
        target.withUnsafeMutableBufferPointer { out in
            for (row, y) in zip(rows, y0..<y1) {
                var at = out.baseAddress! + (y * targetWidth + x0) * 4
                let (down, up) = (256 - row.weight, row.weight)
                for column in columns {
                    let topLeft = bytes + row.offset + column.offset
                    let topRight = topLeft + column.next
                    let bottomLeft = topLeft + row.next
                    let bottomRight = bottomLeft + column.next
                    let (left, right) = (256 - column.weight, column.weight)
                    for channel in 0..<3 {
                        let top = UInt32(topLeft[channel]) &* left &+ UInt32(topRight[channel]) &* right
                        let bottom = UInt32(bottomLeft[channel]) &* left &+ UInt32(bottomRight[channel]) &* right
                        at[channel] = UInt8(truncatingIfNeeded: (top &* down &+ bottom &* up &+ 32_768) >> 16)
                    }
                    at[3] = 0xFF
                    at += 4
                }
            }
        }
    }

    /// Where one coordinate samples along one of the picture's axes: the byte offset of the pixel before it, the bytes
    /// to the pixel after it (0 at the edge, which repeats), and how much of the one after it counts, in 256ths.
    private struct Tap {
        var offset: Int
        var next: Int
        var weight: UInt32
    }

    /// One of the picture's axes: `length` pixels, `step` bytes apart.
    private struct Axis {
        var length: Int
        var step: Int

        /// The tap of the coordinate `c` (pixel centres at half-integers, as a viewport samples).
        func tap(_ c: Float) -> Tap {
            let clamped = max(0, min(c - 0.5, Float(length - 1)))
            let index = Int(clamped)
            let next = min(index + 1, length - 1) - index
            return Tap(
                offset: index * step, next: next * step, weight: UInt32(((clamped - Float(index)) * 256).rounded()))
        }
    }
}
