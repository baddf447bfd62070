// Text: the texture holds cairo's premultiplied ARGB32 (bytes B, G, R, A), drawn in its own colours (the text
// colour is rasterised in; colour emoji keep theirs). Blended with (ONE, ONE_MINUS_SRC_ALPHA).
precision mediump float;
uniform sampler2D u_texture;
varying vec2 v_texcoord;

void main() {
    gl_FragColor = texture2D(u_texture, v_texcoord).bgra;
}
