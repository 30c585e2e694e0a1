#version 330 core
// The original modulated the fill colour by a noise texture (GL_MODULATE) and then drew the
// outline as opaque 1-pixel lines over it. Here the outline is the fill's pixels within
// outline_px of a side on the polygon's outline: the same picture without thousands of lines,
// which a software rasteriser sets up one by one.
in vec2 v_texcoord;
flat in vec4 v_color;
flat in vec4 v_outline;
in vec3 v_edge;
uniform sampler2D noise;
uniform float outline_px;                // outline width in pixels
out vec4 frag_color;
void main() {
    // Distance in pixels to each side: its barycentric weight over the weight's screen gradient.
    vec3 gx = dFdx(v_edge);
    vec3 gy = dFdy(v_edge);
    vec3 pixels = v_edge / max(sqrt(gx * gx + gy * gy), vec3(1e-9));
    float nearest = min(pixels.x, min(pixels.y, pixels.z));
    if (v_outline.a > 0.0 && nearest < outline_px) {
        frag_color = v_outline;
        return;
    }
    float shade = texture(noise, v_texcoord).r;
    frag_color = vec4(v_color.rgb * shade, v_color.a);
}
