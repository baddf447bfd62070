// Text: the texture holds FreeType's 8-bit coverage in the alpha channel (GL_ALPHA), tinted by u_color.
precision mediump float;
uniform sampler2D u_texture;
uniform vec4 u_color;
varying vec2 v_texcoord;

void main() {
    gl_FragColor = vec4(u_color.rgb, u_color.a * texture2D(u_texture, v_texcoord).a);
}
