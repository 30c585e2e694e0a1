#version 330 core
// The original modulated the fill colour by a noise texture (GL_MODULATE).
in vec2 v_texcoord;
in vec4 v_color;
uniform sampler2D noise;
out vec4 frag_color;
void main() {
    float shade = texture(noise, v_texcoord).r;
    frag_color = vec4(v_color.rgb * shade, v_color.a);
}
