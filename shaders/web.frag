// A web page's frame (wl_shm ARGB8888/XRGB8888: B, G, R, A bytes in memory, uploaded as RGBA): swizzled back, opaque.
precision mediump float;
uniform sampler2D u_texture;
varying vec2 v_texcoord;

void main() {
    gl_FragColor = vec4(texture2D(u_texture, v_texcoord).bgr, 1.0);
}
