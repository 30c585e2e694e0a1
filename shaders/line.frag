#version 330 core
// Lines fade out across their edges (half_width pixels from the middle, over a pixel); points
// are drawn round, their edge smoothed the same way (GL_POINTS are squares).
in vec4 v_color;
in float v_across;
uniform bool round_points;
uniform float point_size;                // pixels
uniform float half_width;                // pixels: half a line's width
out vec4 frag_color;
void main() {
    float alpha = v_color.a;
    if (round_points) {
        float r = length(gl_PointCoord - vec2(0.5)) * point_size;   // pixels from the centre
        alpha *= clamp(0.5 * point_size - r + 0.5, 0.0, 1.0);
    } else {
        alpha *= clamp(half_width + 0.5 - abs(v_across), 0.0, 1.0);
    }
    if (alpha <= 0.0) {
        discard;
    }
    frag_color = vec4(v_color.rgb, alpha);
}
