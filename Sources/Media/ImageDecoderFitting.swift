import CGdkPixbuf

extension ImageDecoder {
    /// Decodes `path` at the size `size` chooses from the file's own size (read from its header first): what the
    /// screens that show it need, which depends on the picture's aspect ratio as much as on theirs (`cover` needs the
    /// picture to cover both of a screen's sides, `contain` to fit them).
    public static func decode(
        path: String, sizedBy size: (_ width: Int, _ height: Int) -> (width: Int, height: Int),
        limits: ImageLimits = .init()
    ) throws(MediaError) -> DecodedImage {
        var width: Int32 = 0
        var height: Int32 = 0
        // The header only; the decode below checks the file and refuses what cannot be decoded, with the reason.
        guard gdk_pixbuf_get_file_info(path, &width, &height) != nil, width > 0, height > 0 else {
            return try decode(path: path, fitting: (1, 1), limits: limits)
        }
        return try decode(path: path, fitting: size(Int(width), Int(height)), limits: limits)
    }
}
