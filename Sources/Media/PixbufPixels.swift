import CGdkPixbuf
import SystemCalls

/// GdkPixbuf's pixels (8-bit RGB or non-premultiplied RGBA, rows `rowstride` bytes apart) into XRGB8888 shared
/// memory, transparent pixels composited over a background colour: the compositor is handed opaque XRGB buffers, so
/// what shows through a transparent PNG is decided here, once.
enum PixbufPixels {
    /// - Parameter background: XRGB8888, what alpha is composited over.
    static func copy(_ pixbuf: OpaquePointer, background: UInt32) throws(SystemCallError) -> SharedPixels {
        let width = gdk_pixbuf_get_width(pixbuf)
        let height = gdk_pixbuf_get_height(pixbuf)
        let rowstride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        let hasAlpha = gdk_pixbuf_get_has_alpha(pixbuf) != 0 && channels == 4
        let shared = try SharedPixels(width: width, height: height)
        let source = gdk_pixbuf_read_pixels(pixbuf)!
        let backgroundRed = (background >> 16) & 0xFF
        let backgroundGreen = (background >> 8) & 0xFF
        let backgroundBlue = background & 0xFF
        for y in 0..<Int(height) {
            let row = source + y * rowstride
            let target = shared.words + y * Int(width)
            for x in 0..<Int(width) {
                let pixel = row + x * channels
                var red = UInt32(pixel[0])
                var green = UInt32(pixel[1])
                var blue = UInt32(pixel[2])
                if hasAlpha {
                    let alpha = UInt32(pixel[3])
                    if alpha != 255 {
                        red = (red * alpha + backgroundRed * (255 - alpha) + 127) / 255
                        green = (green * alpha + backgroundGreen * (255 - alpha) + 127) / 255
                        blue = (blue * alpha + backgroundBlue * (255 - alpha) + 127) / 255
                    }
                }
                target[x] = 0xFF00_0000 | red << 16 | green << 8 | blue
            }
        }
        return shared
    }
}
