#version 330 core
// The atlas holds glyph coverage in its red channel.
in vec2 v_texcoord;
in vec4 v_color;
uniform sampler2D atlas;
out vec4 frag_color;
void main() {
    float coverage = texture(atlas, v_texcoord).r;
    frag_color = vec4(v_color.rgb, v_color.a * coverage);
}
