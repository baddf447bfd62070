import CGLES2

/// A framebuffer object to draw a frame into when the frame does not go to an EGL window surface but into memory
/// of our own (a shared `wl_shm` frame), read back with one `glReadPixels`.
///
/// The colour buffer is a BGRA texture (`GL_EXT_texture_format_BGRA8888`) read back as BGRA
/// (`GL_EXT_read_format_bgra`): the byte order of `wl_shm`'s ARGB8888/XRGB8888 on little-endian machines, so the
/// read is a copy with no per-pixel conversion. Rows come back bottom first unless the frame was drawn upside down
/// (``Canvas/flipsVertically``), which is how it is drawn.
///
/// Owned by the graphics owner; ``delete()`` while the context is current.
public final class OffscreenFrame {
    private var framebuffer: GLuint = 0
    private var texture: GLuint = 0
    public private(set) var width: Int32 = 0
    public private(set) var height: Int32 = 0

    /// `GL_BGRA_EXT`, from GL_EXT_texture_format_BGRA8888 / GL_EXT_read_format_bgra.
    static let bgra = GLenum(0x80E1)

    public init() {}

    /// Whether the current context can draw into and read back BGRA: the extensions this class needs.
    public static func isSupported(extensions: String) -> Bool {
        let names = Set(extensions.split(separator: " ").map(String.init))
        return names.contains("GL_EXT_texture_format_BGRA8888") && names.contains("GL_EXT_read_format_bgra")
    }

    /// Makes the framebuffer `width`×`height` (reallocated when the size changed) and the target of drawing.
    /// - Returns: false when the framebuffer is incomplete (the caller draws elsewhere).
    public func bind(width: Int32, height: Int32) -> Bool {
        if framebuffer == 0 { glGenFramebuffers(1, &framebuffer) }
        if texture == 0 { glGenTextures(1, &texture) }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        if width != self.width || height != self.height {
            glBindTexture(GLenum(GL_TEXTURE_2D), texture)
            glTexImage2D(
                GLenum(GL_TEXTURE_2D), 0, GLint(Self.bgra), width, height, 0, Self.bgra, GLenum(GL_UNSIGNED_BYTE),
                nil)
            for (parameter, value) in [
                (GL_TEXTURE_MIN_FILTER, GL_NEAREST), (GL_TEXTURE_MAG_FILTER, GL_NEAREST),
                (GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE), (GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE),
            ] {
                glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(parameter), value)
            }
            glFramebufferTexture2D(
                GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), texture, 0)
            self.width = width
            self.height = height
        }
        return glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER)) == GLenum(GL_FRAMEBUFFER_COMPLETE)
    }

    /// Copies the whole frame into `pixels` (`width` × 4 bytes a row, rows as drawn). Waits for the drawing to
    /// finish (it is the read).
    public func read(into pixels: UnsafeMutableRawPointer) {
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 4)
        glReadPixels(0, 0, width, height, Self.bgra, GLenum(GL_UNSIGNED_BYTE), pixels)
    }

    /// Makes the window surface's default framebuffer the target of drawing again.
    public func unbind() {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
    }

    public func delete() {
        if framebuffer != 0 { glDeleteFramebuffers(1, &framebuffer) }
        if texture != 0 { glDeleteTextures(1, &texture) }
        (framebuffer, texture, width, height) = (0, 0, 0, 0)
    }
}
