import CGLES2

/// The latest frame of one web page, copied from the web process's shared-memory buffer into a GL texture the
/// screen's renderer samples (``Canvas/drawWebFrame(_:in:)``). The copy lets the buffer go back to WPE right away.
///
/// Owned by the web screen it belongs to; ``delete()`` while the context is current.
public final class WebFrameTexture {
    public private(set) var texture: GLuint = 0
    public private(set) var width: Int32 = 0
    public private(set) var height: Int32 = 0
    /// Frames uploaded so far.
    public private(set) var uploads = 0

    public init() {}

    /// Copies `width`×`height` pixels whose rows are `stride` bytes apart (B, G, R, A in memory).
    public func upload(pixels: UnsafeRawPointer, width: Int32, height: Int32, stride: Int32) {
        guard width > 0, height > 0 else { return }
        if texture == 0 { glGenTextures(1, &texture) }
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 4)
        let tight = stride == width * 4
        if width != self.width || height != self.height {
            glTexImage2D(
                GLenum(GL_TEXTURE_2D), 0, GL_RGBA, width, height, 0, GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE),
                tight ? pixels : nil)
            for (parameter, value) in [
                (GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE), (GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE),
                (GL_TEXTURE_MIN_FILTER, GL_LINEAR), (GL_TEXTURE_MAG_FILTER, GL_LINEAR),
            ] {
                glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(parameter), value)
            }
            self.width = width
            self.height = height
            if tight {
                uploads += 1
                return
            }
        }
        if tight {
            glTexSubImage2D(
                GLenum(GL_TEXTURE_2D), 0, 0, 0, width, height, GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), pixels)
        } else {
            // GLES2 has no GL_UNPACK_ROW_LENGTH: padded rows go one at a time.
            for row in 0..<height {
                glTexSubImage2D(
                    GLenum(GL_TEXTURE_2D), 0, 0, row, width, 1, GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE),
                    pixels + Int(row) * Int(stride))
            }
        }
        uploads += 1
    }

    /// Nearest sampling when drawn 1:1 (the page at the screen's own size, and llvmpipe's fast path).
    func setFiltering(exact: Bool) {
        setTextureFiltering(texture, exact: exact)
    }

    public func delete() {
        if texture != 0 { glDeleteTextures(1, &texture) }
        texture = 0
        width = 0
        height = 0
    }
}
