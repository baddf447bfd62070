import CGLES2

/// Chooses how `texture` is sampled: nearest when it is drawn 1:1 (an exact copy, and llvmpipe's fast path), linear
/// when it is scaled. Leaves `texture` bound to `GL_TEXTURE_2D`.
func setTextureFiltering(_ texture: GLuint, exact: Bool) {
    glBindTexture(GLenum(GL_TEXTURE_2D), texture)
    let filter = exact ? GL_NEAREST : GL_LINEAR
    glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MIN_FILTER), filter)
    glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), filter)
}
