// Every quad Multiscreen draws: positions in buffer pixels (origin top-left), mapped to clip space here so
// the Swift side never deals in normalised coordinates.
attribute vec2 a_position;
attribute vec2 a_texcoord;
uniform vec2 u_viewport;
// 1 for a window's framebuffer; -1 for a frame read back into memory, whose rows must come out top first.
uniform float u_flip;
varying vec2 v_texcoord;

void main() {
    vec2 clip = a_position / u_viewport * 2.0 - 1.0;
    // GL's y axis points up, Wayland's (and our layout's) down.
    gl_Position = vec4(clip.x, -clip.y * u_flip, 0.0, 1.0);
    v_texcoord = a_texcoord;
}
