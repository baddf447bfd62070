// A rendered texture (the controller UI's offscreen copy) drawn onto a mirroring screen.
precision mediump float;
uniform sampler2D u_texture;
varying vec2 v_texcoord;

void main() {
    gl_FragColor = vec4(texture2D(u_texture, v_texcoord).rgb, 1.0);
}
