import CGdkPixbuf
import COnDemandLibraries
import Glibc
import SystemCalls

/// Decodes image files with GdkPixbuf (PNG, JPEG, GIF, WebP, SVG, and whatever other loader is installed) into
/// ``DecodedImage``s, once per file, at the size they will be shown at.
///
/// Called on a worker thread, never the display thread: a decode takes from milliseconds to seconds. Every
/// refusal that can be made from the header or the container (a missing file, a bomb, a truncated file) is made
/// before any pixel memory is taken.
public enum ImageDecoder {
    /// Decodes `path`, scaled down while decoding to fit inside `fitting` (aspect kept, never scaled up; an SVG is
    /// rendered at the size that fits, up or down, being drawn rather than resampled).
    /// - Parameters:
    ///   - fitting: the largest width × height the image will be shown at: the caller passes what *covers* its
    ///     screens (for `cover`, the box the image is cropped from), so that nothing decoded is thrown away.
    ///   - background: XRGB8888, what transparent pixels are composited over (black by default).
    /// - Throws: ``MediaError``: the file's own checks, ``MediaError/tooLarge(width:height:limit:)`` from the
    ///   header, ``MediaError/unsupported(path:reason:)`` when no loader knows the format or an animation exceeds
    ///   ``ImageLimits/maximumAnimationBytes``, ``MediaError/corrupt(path:reason:)`` when it is damaged.
    public static func decode(
        path: String, fitting: (width: Int, height: Int), limits: ImageLimits = .init(),
        background: UInt32 = 0xFF00_0000
    ) throws(MediaError) -> DecodedImage {
        try decode(path: path, sizedBy: { _, _ in fitting }, limits: limits, background: background)
    }

    /// ``decode(path:fitting:limits:background:)`` for a caller whose box depends on the picture's aspect ratio
    /// (`cover` crops the image to the screens' shape): `sizedBy` is given the image's size as shown (EXIF
    /// orientation applied), read from the header before anything is decoded, and returns the box to fit.
    public static func decode(
        path: String, sizedBy: (_ width: Int, _ height: Int) -> (width: Int, height: Int),
        limits: ImageLimits = .init(), background: UInt32 = 0xFF00_0000
    ) throws(MediaError) -> DecodedImage {
        let (descriptor, size) = try MediaFile.open(path)
        defer { close(descriptor) }
        if let failure = loadFailure { throw .unsupported(path: path, reason: failure) }
        var width: Int32 = 0
        var height: Int32 = 0
        // Reads the header only: the loader is told to stop at the size (no pixel memory).
        guard let format = gdk_pixbuf_get_file_info(path, &width, &height) else {
            throw .unsupported(path: path, reason: "not an image format any installed GdkPixbuf loader reads")
        }
        let formatName = name(of: format)
        let isVector = formatName == "svg"
        guard width > 0, height > 0 else {
            throw .corrupt(path: path, reason: "the \(formatName) header gives no size")
        }
        if !isVector && Int(width) * Int(height) > limits.maximumSourcePixels {
            throw .tooLarge(width: Int(width), height: Int(height), limit: limits.maximumSourcePixels)
        }
        let bytes = FileBytes(descriptor: descriptor, count: size)
        let container = ImageContainer.read(bytes, format: formatName)
        if let error = bytes.readError {
            throw .unreadable(path: path, reason: String(cString: strerror(error)))
        }
        if let damage = container.damage { throw .corrupt(path: path, reason: damage) }
        let quarterTurned = (5...8).contains(container.orientation)
        let shown = quarterTurned ? (width: Int(height), height: Int(width)) : (width: Int(width), height: Int(height))
        let fitting = sizedBy(shown.width, shown.height)
        let box = (width: max(fitting.width, 1), height: max(fitting.height, 1))
        if container.frames > 1 {
            let needed = container.frames * Int(width) * Int(height) * 4
            guard needed <= limits.maximumAnimationBytes else {
                throw .unsupported(
                    path: path,
                    reason: "an animation of \(container.frames) frames of \(width)×\(height) needs \(needed >> 20) MiB"
                        + " decoded, more than the limit of \(limits.maximumAnimationBytes >> 20) MiB")
            }
            if let animated = try decodeAnimation(
                path: path, box: box, frameCount: container.frames, loops: container.loops, background: background)
            {
                return animated
            }
        }
        return try decodeStill(
            path: path, size: (Int(width), Int(height)), quarterTurned: quarterTurned, isVector: isVector, box: box,
            background: background)
    }

    /// Nil once GdkPixbuf is loaded (at the first decode: it is not linked, see COnDemandLibraries); why not otherwise.
    private static let loadFailure: String? = multiscreen_open_library(on_demand_gdk_pixbuf).map {
        "cannot load GdkPixbuf: \(String(cString: $0))"
    }

    /// A still image: decoded at a scale chosen before decoding (for JPEG, libjpeg's DCT scaling: the full size never
    /// exists), then its EXIF orientation applied, then scaled once more only when the loader's result still
    /// overflows the box (an orientation only the loader knew, as in a TIFF's own tag).
    /// - Parameter quarterTurned: The container's orientation turns the picture a quarter: the stored image is fitted
    ///   to the box turned the same way.
    private static func decodeStill(
        path: String, size: (width: Int, height: Int), quarterTurned: Bool, isVector: Bool,
        box: (width: Int, height: Int), background: UInt32
    ) throws(MediaError) -> DecodedImage {
        var error: UnsafeMutablePointer<GError>?
        let loaded: OpaquePointer?
        if isVector {
            loaded = gdk_pixbuf_new_from_file_at_scale(path, Int32(box.width), Int32(box.height), 1, &error)
        } else {
            let stored = quarterTurned ? (width: box.height, height: box.width) : box
            let scale = min(
                1, Double(stored.width) / Double(size.width), Double(stored.height) / Double(size.height))
            if scale >= 1 {
                loaded = gdk_pixbuf_new_from_file(path, &error)
            } else {
                let width = max(1, Int32((Double(size.width) * scale).rounded()))
                let height = max(1, Int32((Double(size.height) * scale).rounded()))
                loaded = gdk_pixbuf_new_from_file_at_scale(path, width, height, 1, &error)
            }
        }
        guard let loaded else { throw mediaError(error, path: path) }
        defer { g_object_unref(UnsafeMutableRawPointer(loaded)) }
        let orientation = gdk_pixbuf_get_option(loaded, "orientation").flatMap { Int(String(cString: $0)) } ?? 1
        let turned = (5...8).contains(orientation)
        guard let oriented = gdk_pixbuf_apply_embedded_orientation(loaded) else {
            throw .corrupt(path: path, reason: "the EXIF orientation could not be applied")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(oriented)) }
        let fitted = try fit(oriented, in: box, path: path)
        defer { g_object_unref(UnsafeMutableRawPointer(fitted)) }
        let pixels = try shared(fitted, background: background, path: path)
        return DecodedImage(
            sourceWidth: turned ? size.height : size.width, sourceHeight: turned ? size.width : size.height,
            frames: [pixels], delays: [0], loops: false)
    }

    /// Every frame of an animated GIF or WebP, composited by the loader, scaled to fit. Nil when the loader
    /// calls the file a still image after all.
    private static func decodeAnimation(
        path: String, box: (width: Int, height: Int), frameCount: Int, loops: Bool, background: UInt32
    ) throws(MediaError) -> DecodedImage? {
        var error: UnsafeMutablePointer<GError>?
        guard let animation = gdk_pixbuf_animation_new_from_file(path, &error) else {
            throw mediaError(error, path: path)
        }
        defer { g_object_unref(UnsafeMutableRawPointer(animation)) }
        if gdk_pixbuf_animation_is_static_image(animation) != 0 { return nil }
        let width = Int(gdk_pixbuf_animation_get_width(animation))
        let height = Int(gdk_pixbuf_animation_get_height(animation))
        guard let iterator = cgdk_animation_iter_at_start(animation) else {
            throw .corrupt(path: path, reason: "the animation has no frames")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(iterator)) }
        var frames: [SharedPixels] = []
        var delays: [Double] = []
        // GdkPixbuf's GIF iterator reports the time left in the frame, webp-pixbuf-loader's the frame's whole
        // length: 1 ms in, the first tells them apart.
        let firstDelay = gdk_pixbuf_animation_iter_get_delay_time(iterator)
        cgdk_animation_iter_advance_to(iterator, 1)
        let reportsTimeLeft = firstDelay > 1 && gdk_pixbuf_animation_iter_get_delay_time(iterator) == firstDelay - 1
        var start: Int64 = 0
        for index in 0..<frameCount {
            if index > 0 {
                // 1 ms into the frame: both iterators pick the frame whose interval holds that time
                // (webp-pixbuf-loader's takes a frame's end as still inside it, so its start would not do).
                cgdk_animation_iter_advance_to(iterator, start + 1)
            }
            guard let frame = gdk_pixbuf_animation_iter_get_pixbuf(iterator) else { break }
            var milliseconds = gdk_pixbuf_animation_iter_get_delay_time(iterator)
            if reportsTimeLeft && milliseconds >= 0 { milliseconds += 1 }
            let fitted = try fit(frame, in: box, path: path)
            defer { g_object_unref(UnsafeMutableRawPointer(fitted)) }
            frames.append(try shared(fitted, background: background, path: path))
            // -1: this frame stays (an animation that plays a given number of times ends on it).
            delays.append(milliseconds < 0 ? 0 : Double(milliseconds) / 1000)
            if milliseconds < 0 { break }
            start += Int64(milliseconds)
        }
        guard !frames.isEmpty else { throw .corrupt(path: path, reason: "the animation has no frames") }
        return DecodedImage(sourceWidth: width, sourceHeight: height, frames: frames, delays: delays, loops: loops)
    }

    /// `pixbuf` scaled down to fit `box` (a new reference), or `pixbuf` itself, referenced again, when it fits.
    private static func fit(_ pixbuf: OpaquePointer, in box: (width: Int, height: Int), path: String) throws(MediaError)
        -> OpaquePointer
    {
        let width = Int(gdk_pixbuf_get_width(pixbuf))
        let height = Int(gdk_pixbuf_get_height(pixbuf))
        guard width > box.width || height > box.height else {
            g_object_ref(UnsafeMutableRawPointer(pixbuf))
            return pixbuf
        }
        let scale = min(Double(box.width) / Double(width), Double(box.height) / Double(height))
        let scaledWidth = max(1, Int32((Double(width) * scale).rounded()))
        let scaledHeight = max(1, Int32((Double(height) * scale).rounded()))
        guard let scaled = gdk_pixbuf_scale_simple(pixbuf, scaledWidth, scaledHeight, GDK_INTERP_BILINEAR) else {
            throw .unsupported(path: path, reason: "no memory to scale the image to \(scaledWidth)×\(scaledHeight)")
        }
        return scaled
    }

    private static func shared(_ pixbuf: OpaquePointer, background: UInt32, path: String) throws(MediaError)
        -> SharedPixels
    {
        do {
            return try PixbufPixels.copy(pixbuf, background: background)
        } catch {
            throw .unsupported(path: path, reason: "no shared memory for the decoded pixels (\(error))")
        }
    }

    /// GdkPixbuf's short name of a format (`png`, `jpeg`, `gif`, `webp`, `svg`, …).
    private static func name(of format: OpaquePointer) -> String {
        guard let name = gdk_pixbuf_format_get_name(format) else { return "" }
        defer { g_free(name) }
        return String(cString: name)
    }

    /// A GError from GdkPixbuf as a ``MediaError`` (and freed): an unknown or unsupported format is
    /// `unsupported`, a file that cannot be read is `unreadable`, anything else the loader says is `corrupt`.
    static func mediaError(_ error: UnsafeMutablePointer<GError>?, path: String) -> MediaError {
        guard let error else { return .corrupt(path: path, reason: "the loader failed without saying why") }
        defer { g_error_free(error) }
        let message = error.pointee.message.map { String(cString: $0) } ?? "no message"
        let code = UInt32(bitPattern: error.pointee.code)
        if error.pointee.domain == gdk_pixbuf_error_quark() {
            switch code {
            case GDK_PIXBUF_ERROR_UNKNOWN_TYPE.rawValue, GDK_PIXBUF_ERROR_UNSUPPORTED_OPERATION.rawValue,
                GDK_PIXBUF_ERROR_INSUFFICIENT_MEMORY.rawValue:
                return .unsupported(path: path, reason: message)
            default: return .corrupt(path: path, reason: message)
            }
        }
        if error.pointee.domain == g_file_error_quark() { return .unreadable(path: path, reason: message) }
        return .corrupt(path: path, reason: message)
    }
}
