#version 330 core
// Overlay lines as quads and points: world-space, one colour per vertex. A line's corners are
// moved by their offset in pixels (demo/draw/mesh.py line_quads); points have none.
layout(location = 0) in vec2 position;   // world units
layout(location = 1) in vec2 offset;     // pixels (lines; 0 for points)
layout(location = 2) in vec4 color;
layout(location = 3) in float across;    // pixels from the line's middle, signed (lines)
uniform mat4 transform;                  // world -> clip
uniform float point_size;                // pixels, used when drawing GL_POINTS
uniform float px_world;                  // world units per framebuffer pixel
out vec4 v_color;
out float v_across;
void main() {
    gl_Position = transform * vec4(position + offset * px_world, 0.0, 1.0);
    gl_PointSize = point_size;
    v_color = color;
    v_across = across;
}
