import CGLES2

/// The controller UI as a texture: copied from the controller's framebuffer right after the controller is drawn,
/// then sampled by every screen that mirrors it. The UI is rendered once per frame, however many mirrors there are.
///
/// Why a copy of the drawn frame rather than rendering into a framebuffer object and blitting it back: with
/// Mesa's software rasteriser a full-screen textured quad costs more than the UI itself, so the controller's own
/// surface is drawn directly and only the mirrors pay for sampling.
///
/// Owned by the application; ``delete()`` while the context is current.
public final class MirrorTexture {
    public private(set) var texture: GLuint = 0
    public private(set) var width: Int32 = 0
    public private(set) var height: Int32 = 0

    public init() {}

    /// Copies `width`×`height` pixels of the current framebuffer, whose bottom-left corner is at (x, y) in GL
    /// window coordinates, into the texture (reallocated when the size changed).
    public func capture(x: Int32, y: Int32, width: Int32, height: Int32) {
        if texture == 0 { glGenTextures(1, &texture) }
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        if width != self.width || height != self.height {
            glTexImage2D(
                GLenum(GL_TEXTURE_2D), 0, GL_RGBA, width, height, 0, GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), nil)
            for (parameter, value) in [
                (GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE), (GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE),
            ] {
                glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(parameter), value)
            }
            self.width = width
            self.height = height
        }
        glCopyTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, x, y, width, height)
    }

    /// Nearest sampling when drawn 1:1 (a mirror of the controller's size: an exact copy, and llvmpipe's fast
    /// path), linear otherwise.
    public func setFiltering(exact: Bool) {
        setTextureFiltering(texture, exact: exact)
    }

    public func delete() {
        if texture != 0 { glDeleteTextures(1, &texture) }
        texture = 0
        width = 0
        height = 0
    }
}
