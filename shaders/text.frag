#version 330 core
// The atlas holds glyph coverage in its red channel. A quad with negative atlas coordinates is
// a solid rectangle (demo/draw/text.py SOLID_UV): its colour as it is, the atlas not read.
in vec2 v_texcoord;
in vec4 v_color;
uniform sampler2D atlas;
out vec4 frag_color;
void main() {
    if (v_texcoord.x < 0.0) {
        frag_color = v_color;
        return;
    }
    float coverage = texture(atlas, v_texcoord).r;
    frag_color = vec4(v_color.rgb, v_color.a * coverage);
}
