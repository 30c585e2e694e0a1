#version 330 core
// Overlay text: quads in framebuffer pixels (origin top-left, y down), glyph atlas coordinates.
layout(location = 0) in vec2 position;   // pixels
layout(location = 1) in vec2 texcoord;   // atlas, 0..1
layout(location = 2) in vec4 color;
uniform vec2 viewport;                   // framebuffer size in pixels
out vec2 v_texcoord;
out vec4 v_color;
void main() {
    vec2 ndc = vec2(position.x / viewport.x * 2.0 - 1.0, 1.0 - position.y / viewport.y * 2.0);
    gl_Position = vec4(ndc, 0.0, 1.0);
    v_texcoord = texcoord;
    v_color = color;
}
