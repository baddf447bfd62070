import CGLES2

/// A texture with a framebuffer object around it: the controller UI is drawn here once per frame, and every
/// screen that mirrors it (and the controller's own surface) samples the texture instead of drawing the UI again.
///
/// Owned by the application; ``delete()`` while the context is current.
public final class OffscreenTarget {
    public private(set) var texture: GLuint = 0
    private var framebuffer: GLuint = 0
    public private(set) var width: Int32 = 0
    public private(set) var height: Int32 = 0

    public init() {}

    /// Binds the framebuffer for drawing, (re)allocating the texture at `width`×`height` when the size changed.
    /// - Returns: false if the driver rejects the framebuffer (then draw directly instead).
    public func bind(width: Int32, height: Int32) -> Bool {
        if texture == 0 {
            glGenTextures(1, &texture)
            glGenFramebuffers(1, &framebuffer)
        }
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        if width != self.width || height != self.height {
            glTexImage2D(
                GLenum(GL_TEXTURE_2D), 0, GL_RGBA, width, height, 0, GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), nil)
            // Linear: a mirror is usually smaller or larger than the controller, never 1:1.
            for (parameter, value) in [
                (GL_TEXTURE_MIN_FILTER, GL_LINEAR), (GL_TEXTURE_MAG_FILTER, GL_LINEAR),
                (GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE), (GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE),
            ] {
                glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(parameter), value)
            }
            self.width = width
            self.height = height
        }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glFramebufferTexture2D(
            GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), texture, 0)
        let complete = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER)) == GLenum(GL_FRAMEBUFFER_COMPLETE)
        if !complete { Self.bindWindow() }
        return complete
    }

    /// Back to the current EGL surface's own framebuffer.
    public static func bindWindow() { glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0) }

    public func delete() {
        if framebuffer != 0 { glDeleteFramebuffers(1, &framebuffer) }
        if texture != 0 { glDeleteTextures(1, &texture) }
        framebuffer = 0
        texture = 0
        width = 0
        height = 0
    }
}
