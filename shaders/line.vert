#version 330 core
// Outlines, overlay lines and points: world-space, one colour per vertex.
layout(location = 0) in vec2 position;   // world units
layout(location = 2) in vec4 color;
uniform mat4 transform;                  // world -> clip
uniform float point_size;                // pixels, used when drawing GL_POINTS
out vec4 v_color;
void main() {
    gl_Position = transform * vec4(position, 0.0, 1.0);
    gl_PointSize = point_size;
    v_color = color;
}
