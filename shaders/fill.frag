#version 330 core
// The original modulated the fill colour by a noise texture (GL_MODULATE) and then drew the
// outline as opaque 1-pixel lines over it. Here the outline is the fill's pixels within
// outline_px of a side on the polygon's outline: the same picture without thousands of lines,
// which a software rasteriser sets up one by one. Its inner edge is blended over about a
// pixel; its outer edge is the fringe's, which fades the outline (or the fill, for a polygon
// without one) out over the pixel that straddles the true edge.
in vec2 v_texcoord;
flat in vec4 v_color;
flat in vec4 v_outline;
flat in int v_fringe;
in vec3 v_edge;
in float v_cover;
uniform sampler2D noise;
uniform float outline_px;                // outline width in pixels
out vec4 frag_color;
void main() {
    float shade = texture(noise, v_texcoord).r;
    vec4 fill = vec4(v_color.rgb * shade, v_color.a);
    if (v_fringe != 0) {
        vec4 edge = v_outline.a > 0.0 ? v_outline : fill;
        frag_color = vec4(edge.rgb, edge.a * v_cover);
        return;
    }
    // Distance in pixels to each side: its barycentric weight over the weight's screen gradient.
    vec3 gx = dFdx(v_edge);
    vec3 gy = dFdy(v_edge);
    vec3 pixels = v_edge / max(sqrt(gx * gx + gy * gy), vec3(1e-9));
    float nearest = min(pixels.x, min(pixels.y, pixels.z));
    float on_outline = v_outline.a > 0.0 ? clamp(outline_px + 0.5 - nearest, 0.0, 1.0) : 0.0;
    frag_color = mix(fill, v_outline, on_outline);
}
