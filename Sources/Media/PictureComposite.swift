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
        // Each column's coordinate across the turned picture, computed once rather than per pixel.
        let us = (x0..<x1).map { source.x + (Float($0) + 0.5 - destination.x) / destination.width * source.width }
        target.withUnsafeMutableBufferPointer { out in
            for y in y0..<y1 {
                // The pixel's centre in the turned picture.
                let v = source.y + (Float(y) + 0.5 - destination.y) / destination.height * source.height
                var at = (y * targetWidth + x0) * 4
                for u in us {
                    // Back to the stored picture: the turn undone (``MediaPlacement/bufferCrop``'s mapping).
                    let (px, py): (Float, Float)
                    switch rotation {
                    case .none: (px, py) = (u, v)
                    case .quarter: (px, py) = (v, h - u)
                    case .half: (px, py) = (w - u, h - v)
                    case .threeQuarters: (px, py) = (w - v, u)
                    }
                    bilinear(bytes, picture, px - 0.5, py - 0.5, into: out.baseAddress! + at)
                    at += 4
                }
            }
        }
    }

    /// Writes the picture at (`x`, `y`) (pixel centres at whole numbers, its edge pixels repeated beyond it) to `out`'s
    /// first three bytes, and 0xFF to the fourth.
    @inline(__always)
    private static func bilinear(
        _ bytes: UnsafePointer<UInt8>, _ picture: Picture, _ x: Float, _ y: Float, into out: UnsafeMutablePointer<UInt8>
    ) {
        let fx = max(0, min(x, Float(picture.width - 1)))
        let fy = max(0, min(y, Float(picture.height - 1)))
        let ix = Int(fx)
        let iy = Int(fy)
        let nx = min(ix + 1, picture.width - 1) - ix
        let ny = min(iy + 1, picture.height - 1) - iy
        let ax = fx - Float(ix)
        let ay = fy - Float(iy)
        let topLeft = bytes + iy * picture.stride + ix * 4
        let topRight = topLeft + nx * 4
        let bottomLeft = topLeft + ny * picture.stride
        let bottomRight = bottomLeft + nx * 4
        for channel in 0..<3 {
            let top = Float(topLeft[channel]) + (Float(topRight[channel]) - Float(topLeft[channel])) * ax
            let bottom = Float(bottomLeft[channel]) + (Float(bottomRight[channel]) - Float(bottomLeft[channel])) * ax
            out[channel] = UInt8(max(0, min(255, (top + (bottom - top) * ay).rounded())))
        }
        out[3] = 0xFF
    }
}
