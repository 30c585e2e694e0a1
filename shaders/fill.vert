#version 330 core
// Translucent body fills: world-space triangles with noise-texture coordinates.
layout(location = 0) in vec2 position;   // world units
layout(location = 1) in vec2 texcoord;   // local vertex * 0.06, as the original
layout(location = 2) in vec4 color;      // straight (not premultiplied) RGBA
uniform mat4 transform;                  // world -> clip
out vec2 v_texcoord;
out vec4 v_color;
void main() {
    gl_Position = transform * vec4(position, 0.0, 1.0);
    v_texcoord = texcoord;
    v_color = color;
}
